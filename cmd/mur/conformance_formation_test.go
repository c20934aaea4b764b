package main

import (
	"bufio"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/credential"
)

// memberManifest is the conforming capsule as a formation member's: an
// authenticated door with a credential that reaches two methods.
const memberManifest = conformingManifest + `network:
  authentication:
    scheme: bearer
    credentials:
      - {name: reader, scopes: [GetTask, ListTasks]}
`

// startMember starts `mur run` on the conforming capsule as member "worker"
// of a formation whose launcher is the test: it holds the key, writes the
// channel's credentials line (formations.md CHAN-2) and keeps the lifeline.
// It returns the door's URL, the session id and lead's member token for it.
func startMember(t *testing.T, e *runEnv) (p *runProc, lifeline *os.File, url, session, member string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	frm := a2a.NewID(a2a.PrefixFormation)
	chR, chW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"type": "credentials", "formation_id": frm, "member": "worker",
		"verify_key": base64.RawURLEncoding.EncodeToString(pub),
		"launcher":   map[string]any{"pid": os.Getpid(), "process_start": ""},
		"callees":    []string{}, "tokens": map[string]string{}})
	if _, err := chW.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	p = &runProc{cmd: e.command("--capsule", ".", "--json"), done: make(chan struct{})}
	p.cmd.Env = append(p.cmd.Env, "MURMUR_FORMATION_ID="+frm, "MURMUR_FORMATION_CHANNEL=3", "MURMUR_FORMATION_LIFELINE=4")
	p.cmd.ExtraFiles = []*os.File{chR, lifeR}
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Stderr = &p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdout = bufio.NewReader(out)
	if err := testmur.Start(p.cmd); err != nil {
		t.Fatal(err)
	}
	chR.Close()
	lifeR.Close()
	t.Cleanup(func() {
		chW.Close()
		lifeW.Close()
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			p.wait()
		}
	})
	var ready struct {
		SessionID   string `json:"session_id"`
		URL         string `json:"url"`
		FormationID string `json:"formation_id"`
	}
	if err := json.Unmarshal([]byte(p.line(t)), &ready); err != nil || ready.URL == "" || ready.FormationID != frm {
		t.Fatalf("readiness line: %+v %v (stderr %q)", ready, err, p.stderr.String())
	}
	tok, err := credential.Mint(priv, credential.MemberClaims(frm, "lead", "worker"))
	if err != nil {
		t.Fatal(err)
	}
	return p, lifeW, ready.URL, ready.SessionID, string(tok)
}

// doorTokens reads a session's tokens with `mur token`: name → token.
func doorTokens(t *testing.T, e *runEnv, session string) map[string]string {
	t.Helper()
	out, errOut, code := runMur(t, e, "token", session)
	if code != 0 {
		t.Fatalf("mur token exited %d: %s", code, errOut)
	}
	toks := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if name, tok, ok := strings.Cut(l, " "); ok {
			toks[name] = tok
		}
	}
	return toks
}

// A formation member's door served by a real `mur run` (the test acting as
// its launcher) passes `mur conformance` given its door token, a scoped
// credential and a member token of the formation: 0 failed, none warned, and
// the checks each token unlocks pass (door.md AUTH-3, AUTH-6, GO-5, GO-7).
func TestMurConformanceFormationMemberDoor_AUTH6(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t, map[string]string{"murmur.yaml": memberManifest, "script.yaml": conformingScript})
	p, lifeline, url, session, member := startMember(t, e)
	toks := doorTokens(t, e, session)
	if toks["operator"] == "" || toks["reader"] == "" {
		t.Fatalf("mur token printed %v, want operator and reader", toks)
	}
	scoped := filepath.Join(t.TempDir(), "scoped.tok")
	if err := os.WriteFile(scoped, []byte(toks["reader"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := e.command() // every token off the command line
	cmd.Args = []string{murBin, "conformance", url, "--token", "scoped=@" + scoped, "--token", "member=@-",
		"--task-text", "conformance: say done", "--slow-task-text", "hold on"}
	cmd.Env = append(cmd.Env, "MURMUR_CONFORMANCE_TOKEN_DOOR="+toks["operator"])
	cmd.Stdin = strings.NewReader(member + "\n")
	out, errOut, code := testmur.Exec(t, cmd)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || errOut != "" || !strings.HasSuffix(lines[len(lines)-1], " passed, 0 failed") {
		t.Errorf("mur conformance exited %d, stderr %q:\n%s", code, errOut, out)
	}
	for _, id := range []string{"auth.missing", "auth.invalid", "auth.scoped", "formation.scope", "formation.forged",
		"formation.own-tasks", "cancel.live", "subscribe.live", "murmur.session-stop"} {
		if !containsLine(lines, "PASS "+id+"  ") {
			t.Errorf("%s did not pass:\n%s", id, out)
		}
	}
	for _, secret := range []string{toks["operator"], toks["reader"], member} {
		if strings.Contains(out, secret) {
			t.Errorf("a token reached mur conformance's output")
		}
	}
	// The formation ends (LIFE-3). A canceled "hold" task may still be winding
	// down its sleep, and then the session ends formation_ended (exit 1).
	lifeline.Close()
	if code := p.wait(); code != 0 && (code != 1 || !strings.Contains(p.stderr.String(), "the task ended formation_ended")) {
		t.Errorf("the member exited %d after its lifeline closed; stderr:\n%s", code, p.stderr.String())
	}
	noProcessIn(t, e.dir)
}

func containsLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}
