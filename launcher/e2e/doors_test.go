package e2e

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/credential"
	"github.com/murmur-go/mur/runtime/store"
)

const peerManifest = `name: %s
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
lifecycle:
  task_acceptance: queue
  after_task: sleep
exports:
  peer_tasks:
    accept: true
network:
  authentication:
    scheme: bearer
`

const peerScript = "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: \"%s did: {{task}}\"\n"

// installPeer writes and globally installs a queue/sleep capsule that serves
// peers, returning its sha256.
func installPeer(t *testing.T, w *world, name string) string {
	t.Helper()
	dir := filepath.Join(w.dir, "src", name)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(fmt.Sprintf(peerManifest, name)), 0o644)
	os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(fmt.Sprintf(peerScript, name)), 0o644)
	if _, errOut, code := w.run(t, ".", "install", "-g", dir); code != 0 {
		t.Fatalf("install %s: %s", name, errOut)
	}
	r, err := store.Stores{Home: w.home}.Resolve(name, "0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	return r.SHA256
}

// handMember is a real `mur run` started by the test acting as its launcher:
// the test holds the formation key, the channel and the lifeline.
type handMember struct {
	cmd   *exec.Cmd
	lifeW *os.File
	ready readiness
	done  chan struct{}
}

func startHandMember(t *testing.T, w *world, frm, name, capsule, sha string, pub ed25519.PublicKey) *handMember {
	t.Helper()
	chR, chW, _ := os.Pipe()
	lifeR, lifeW, _ := os.Pipe()
	line, _ := json.Marshal(map[string]any{"type": "credentials", "formation_id": frm, "member": name,
		"verify_key": base64.RawURLEncoding.EncodeToString(pub), "launcher": map[string]any{"pid": os.Getpid(), "process_start": ""},
		"callees": []string{}, "tokens": map[string]string{}})
	chW.Write(append(line, '\n'))
	workdir := filepath.Join(w.dir, "members", name)
	os.MkdirAll(workdir, 0o700)
	cmd := exec.Command(mur, "run", "--capsule", capsule, "--capsule-version", "0.1.0", "--capsule-sha256", sha,
		"--store-root", w.dir, "--workdir", workdir, "--bind", "127.0.0.1", "--json")
	cmd.Env = append(w.env(), "MURMUR_FORMATION_ID="+frm, "MURMUR_FORMATION_CHANNEL=3", "MURMUR_FORMATION_LIFELINE=4")
	cmd.ExtraFiles = []*os.File{chR, lifeR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var errb testmur.Buffer
	cmd.Stderr = &errb
	out, _ := cmd.StdoutPipe()
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	chR.Close()
	lifeR.Close()
	m := &handMember{cmd: cmd, lifeW: lifeW, done: make(chan struct{})}
	br := bufio.NewReader(out)
	first, err := br.ReadString('\n')
	if err != nil {
		cmd.Wait()
		t.Fatalf("%s printed no readiness line: %v\n%s", name, err, errb.String())
	}
	go func() { io.Copy(io.Discard, br); cmd.Wait(); chW.Close(); close(m.done) }()
	t.Cleanup(func() { lifeW.Close(); cmd.Process.Kill(); <-m.done })
	m.ready = decode[readiness](t, first)
	return m
}

// call POSTs one JSON-RPC request with a bearer token and returns the status
// and body.
func call(t *testing.T, url, token, method, params string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(bytes.TrimSpace(b))
}

func mint(t *testing.T, priv ed25519.PrivateKey, c credential.Claims) string {
	t.Helper()
	tok, err := credential.Mint(priv, c)
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

// TestFormationTokensAtRealDoors drives real member sessions with tokens the
// test mints as their launcher (CRED-3..6, door.md GO-5, AUTH-6): a token
// for the edge lead → worker is refused at coder, another formation's key,
// HS256 and none are refused, a member token cannot stream, the launcher
// token reads the extended card; closing the lifelines ends both members
// with formation_ended before session_end (LIFE-3).
func TestFormationTokensAtRealDoors(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	shaW, shaC := installPeer(t, w, "e2e-worker"), installPeer(t, w, "e2e-coder")
	frm := a2a.NewID(a2a.PrefixFormation)
	pub, priv, _ := ed25519.GenerateKey(nil)
	worker := startHandMember(t, w, frm, "worker", "e2e-worker", shaW, pub)
	coder := startHandMember(t, w, frm, "coder", "e2e-coder", shaC, pub)
	if worker.ready.FormationID != frm || worker.ready.Auth != "bearer" {
		t.Fatalf("worker readiness = %+v", worker.ready)
	}
	leadToWorker := mint(t, priv, credential.MemberClaims(frm, "lead", "worker"))
	getTask := `{"id":"tsk_00000000000000000000000000000000"}`

	status, body := call(t, coder.ready.URL, leadToWorker, "GetTask", getTask)
	if status != 403 || body != `{"error":"not_permitted","message":"member 'lead' may not call this door"}` {
		t.Errorf("lead→worker token at coder = %d %s", status, body)
	}
	_, otherPriv, _ := ed25519.GenerateKey(nil)
	hs, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": frm, "sub": "lead", "aud": frm + "/worker",
		"scope": a2a.MemberTokenScope, "iat": time.Now().Unix(), "jti": "x"}).SignedString([]byte("secret"))
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"iss": frm, "sub": "lead", "aud": frm + "/worker",
		"scope": a2a.MemberTokenScope, "iat": time.Now().Unix(), "jti": "x"}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	for name, tok := range map[string]string{
		"another formation's key": mint(t, otherPriv, credential.MemberClaims(frm, "lead", "worker")),
		"another formation's id":  mint(t, priv, credential.MemberClaims(a2a.NewID(a2a.PrefixFormation), "lead", "worker")),
		"alg HS256":               hs,
		"alg none":                none,
	} {
		status, body := call(t, worker.ready.URL, tok, "GetTask", getTask)
		if status != 401 || body != `{"error":"invalid_token","message":"the Authorization header does not carry a token this door accepts"}` {
			t.Errorf("%s = %d %s", name, status, body)
		}
	}
	status, body = call(t, worker.ready.URL, leadToWorker, "SendStreamingMessage",
		`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`)
	if status != 403 || body != `{"error":"insufficient_scope","message":"credential 'member:lead' does not reach SendStreamingMessage"}` {
		t.Errorf("member token on SendStreamingMessage = %d %s", status, body)
	}
	status, body = call(t, worker.ready.URL, leadToWorker, "SendMessage",
		`{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"sort the list"}]},"configuration":{"returnImmediately":true}}`)
	if status != 200 || !strings.Contains(body, `"result"`) {
		t.Errorf("member token SendMessage at its callee = %d %s", status, body)
	}
	launcherTok := mint(t, priv, credential.LauncherClaims(frm, []string{"worker", "coder"}))
	status, body = call(t, worker.ready.URL, launcherTok, "GetExtendedAgentCard", `{}`)
	if status != 200 || !strings.Contains(body, `"sessionId":"`+worker.ready.SessionID+`"`) {
		t.Errorf("launcher token GetExtendedAgentCard = %d %s", status, body)
	}
	status, _ = call(t, worker.ready.URL, launcherTok, "ListTasks", `{}`)
	if status != 403 {
		t.Errorf("launcher token on ListTasks = %d, want 403", status)
	}

	for _, m := range []*handMember{worker, coder} {
		m.lifeW.Close()
	}
	for _, m := range []*handMember{worker, coder} {
		<-m.done
		endsWithFormationEnded(t, filepath.Join(m.ready.RecordsDir, "trace.jsonl"))
	}
}

// TestUnpassedDescriptorsAreNotOpen: a real mur run told its channel is fd 3
// or its lifeline fd 4 when nothing was handed over there refuses with
// "descriptor N is not open" — not with whatever the Go runtime itself opened
// at that number (CHAN-4, LIFE-8).
func TestUnpassedDescriptorsAreNotOpen(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sha := installPeer(t, w, "e2e-alone")
	frm := a2a.NewID(a2a.PrefixFormation)
	const hint = "\n  hint: launch the formation with mur run --roster, or unset these variables to run this capsule on its own\n"
	for _, tt := range []struct {
		variable, want string
	}{
		{"MURMUR_FORMATION_CHANNEL=3", "error[E-RUN-046]: MURMUR_FORMATION_CHANNEL does not carry this member's formation credentials: descriptor 3 is not open; a member that cannot read what its launcher handed it could neither prove who it is nor call anyone, so the launch is refused" + hint},
		{"MURMUR_FORMATION_LIFELINE=4", "error[E-RUN-046]: MURMUR_FORMATION_LIFELINE does not carry this member's formation lifeline: descriptor 4 is not open; a member that cannot hear its lifeline would keep running after its formation ends, so the launch is refused" + hint},
	} {
		cmd := exec.Command(mur, "run", "--capsule", "e2e-alone", "--capsule-version", "0.1.0", "--capsule-sha256", sha,
			"--store-root", w.dir, "--task", "x")
		cmd.Dir = w.dir
		cmd.Env = append(w.env(), "MURMUR_FORMATION_ID="+frm, tt.variable)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := testmur.RunCmd(cmd)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || out.Len() != 0 || errb.String() != tt.want {
			t.Errorf("%s: %v\nstdout %q\nstderr %q\nwant   %q", tt.variable, err, &out, &errb, tt.want)
		}
	}
}
