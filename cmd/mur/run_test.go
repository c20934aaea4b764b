package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

func TestRunHelloExample_CLI3(t *testing.T) {
	e := helloEnv(t)
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "list the files")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(stdout, "\n")
	if !urlLineRe.MatchString(lines[0]) {
		t.Errorf("line 1 = %q, want murmur: url http://127.0.0.1:<port>", lines[0])
	}
	ses := sesRe.FindString(lines[1])
	if lines[1] != "session: "+ses {
		t.Errorf("line 2 = %q", lines[1])
	}
	rest := strings.Join(lines[2:], "\n")
	want := "Files:\n$ ls -1\nExit code: 0\nStdout:\nmurmur.yaml\nscript.yaml\n\nStderr:\n\nstatus:  ok\n"
	if rest != want {
		t.Errorf("output after the session line = %q, want %q", rest, want)
	}
	wd, _ := filepath.EvalSymlinks(e.dir)
	rec := filepath.Join(e.home, "records", strings.TrimPrefix(wd, "/"), ses)
	types := traceTypes(t, rec)
	if count(types, "inference") != 2 || count(types, "tool_call") != 1 || count(types, "shell") != 1 {
		t.Errorf("trace = %v", types)
	}
	if b, _ := os.ReadFile(filepath.Join(rec, "out", "result.txt")); !strings.HasPrefix(string(b), "Files:") {
		t.Errorf("result.txt = %q", b)
	}
	if ents, _ := os.ReadDir(filepath.Join(e.home, "running")); len(ents) != 0 {
		t.Errorf("running records left: %v (SES-6: removed at session end)", ents)
	}
}

func TestRunDoorMode_CLI4_SIGTERM(t *testing.T) {
	e := helloEnv(t)
	p := e.start(t, "--capsule", e.dir, "--json", "--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
	line := p.line(t)
	var keys []string
	dec := json.NewDecoder(strings.NewReader(line))
	dec.Token()
	ready := map[string]any{}
	for dec.More() {
		k, _ := dec.Token()
		var v any
		dec.Decode(&v)
		keys = append(keys, k.(string))
		ready[k.(string)] = v
	}
	if got := strings.Join(keys, ","); got != "name,pid,records_dir,session_id,url,version,workdir" {
		t.Errorf("readiness keys = %s (line %s)", got, line)
	}
	if ready["name"] != "hello-shell" || ready["pid"] != float64(p.cmd.Process.Pid) || ready["version"] != "0.1.0" {
		t.Errorf("readiness line = %s", line)
	}
	ses := ready["session_id"].(string)
	if _, err := os.Stat(filepath.Join(e.home, "running", ses+".json")); err != nil {
		t.Errorf("running record: %v", err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"list the files"}]}}}`
	req, _ := http.NewRequest("POST", ready["url"].(string)+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var rpc struct {
		Result struct {
			Task struct {
				Status    struct{ State string }
				Artifacts []struct {
					Name  string
					Parts []struct{ Text string }
				}
			}
		}
	}
	json.NewDecoder(resp.Body).Decode(&rpc)
	resp.Body.Close()
	tk := rpc.Result.Task
	if tk.Status.State != "TASK_STATE_COMPLETED" || len(tk.Artifacts) != 1 || !strings.HasPrefix(tk.Artifacts[0].Parts[0].Text, "Files:\n") {
		t.Errorf("SendMessage task = %+v", tk)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(); code != 0 {
		t.Errorf("exit code after SIGTERM while idle = %d, want 0 (stderr %q)", code, p.stderr.String())
	}
	types := traceTypes(t, ready["records_dir"].(string))
	if types[len(types)-1] != "session_end" || count(types, "a2a_task_received") != 1 {
		t.Errorf("trace = %v", types)
	}
	if _, err := os.Stat(filepath.Join(e.home, "running", ses+".json")); !os.IsNotExist(err) {
		t.Errorf("running record not removed: %v", err)
	}
}

func TestRunSIGTERMDuringTask_CLI5(t *testing.T) {
	e := blockingCapsule(t, "", "echo $$ > ready; exec sleep 60")
	p := e.start(t, "--capsule", e.dir, "--task", "block")
	p.line(t) // murmur: url
	ses := strings.TrimPrefix(p.line(t), "session: ")
	pgid := readyPgid(t, e, p)
	p.cmd.Process.Signal(syscall.SIGTERM)
	code := p.wait()
	if code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
	// Run in the workdir, the hint's command needs no --workdir.
	records := filepath.Join(e.home, "records", strings.TrimPrefix(e.dir, "/"), ses)
	want := "error[E-RUN-040]: the task ended canceled: SIGTERM\n  hint: `mur trace show " + ses + "` shows the turn it ended on and why; the task's result text is in " + records + "/out/result.txt\n"
	if p.stderr.String() != want {
		t.Errorf("stderr = %q, want %q", p.stderr.String(), want)
	}
	if !runGroupGone(pgid) {
		t.Errorf("the foreground command's group %d outlived the session (LOOP-16)", pgid)
	}
}

func TestRunSIGTERMStatusLine_CLI3(t *testing.T) {
	e := blockingCapsule(t, "", "echo $$ > ready; exec sleep 60")
	p := e.start(t, "--capsule", e.dir, "--task", "block")
	for i := 0; i < 2; i++ {
		p.line(t) // murmur: url, session:
	}
	pgid := readyPgid(t, e, p)
	p.cmd.Process.Signal(syscall.SIGINT) // acts as SIGTERM (CLI-2)
	rest, _ := io.ReadAll(p.stdout)
	if code := p.wait(); code != 1 {
		t.Errorf("exit code = %d", code)
	}
	if string(rest) != "canceled: SIGTERM\nstatus:  canceled\n" {
		t.Errorf("stdout after the session line = %q", rest)
	}
	if !runGroupGone(pgid) {
		t.Errorf("group %d left running", pgid)
	}
}

func TestRunSecondSignalExits143_SES8(t *testing.T) {
	// A background command that survives SIGTERM holds the wind-down for 2 s
	// (SES-8: SIGKILL after 2 s); it reports the SIGTERM the wind-down sent
	// it, and the second signal then ends mur at once.
	e := blockingCapsule(t, "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n  shell_grace_secs: 0\n",
		"trap 'echo term > termed' TERM; echo $$ > ready; while :; do sleep 0.1; done")
	testmur.FIFO(t, filepath.Join(e.dir, "termed"))
	p := e.start(t, "--capsule", e.dir, "--task", "block")
	pgid := readyPgid(t, e, p)
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	// The first signal must find the command in the background, where the
	// wind-down sends it SIGTERM. Until the task has ended the command may
	// still be the task's foreground one, which the cancel SIGKILLs at once
	// (LOOP-16), its trap never running.
	for p.line(t) != "started" { // the task's result: it has ended
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if b := testmur.ReadFIFO(t, filepath.Join(e.dir, "termed"), p.cmd.Process); string(b) != "term\n" {
		t.Fatalf("termed = %q", b)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(); code != 143 {
		t.Errorf("exit code = %d, want 143 (stderr %q)", code, p.stderr.String())
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	if !runGroupGone(pgid) {
		t.Errorf("group %d left running", pgid)
	}
}

func TestRunUsageErrors_CLI1_CLI2(t *testing.T) {
	e := helloEnv(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--capsule-version", "1.0.0"}, "error: --capsule-version needs --capsule <name>\n"},
		{[]string{"--capsule", ".", "--manifest", "murmur.yaml"}, "error: --capsule and --manifest cannot be used together\n"},
		{[]string{"--resume-mode", "full"}, "error: --resume-mode needs --resume\n"},
		{[]string{"--resume", "--resume-mode", "partial"}, "error: --resume-mode 'partial' is not one of full, compact\n"},
		{[]string{"--context", ""}, "error: --context needs a context id\n"},
		{[]string{"extra"}, "error: unexpected argument 'extra'\n"},
		{[]string{"--deadline", "2001-01-01T00:00:00Z"}, "error: --deadline '2001-01-01T00:00:00Z' is in the past\n"},
		{[]string{"--bind", "example.com"}, "error: --bind 'example.com' is neither an IP literal nor localhost\n"},
		{[]string{"--nope"}, "error: unknown flag --nope\n"},
	}
	for _, c := range cases {
		stdout, stderr, code := e.run(t, c.args...)
		if code != 2 || stdout != "" || stderr != c.want+"run 'mur run --help' for usage\n" {
			t.Errorf("mur run %v = %d, %q, %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
	stdout, _, code := e.run(t, "--help")
	if code != 0 || !strings.HasPrefix(stdout, "Usage: mur run") || strings.Contains(stdout, "store-root") {
		t.Errorf("--help = %d, %q", code, stdout)
	}
}

func TestRunRefusedLaunch_MAN4(t *testing.T) {
	e := helloEnv(t)
	missing := filepath.Join(e.dir, "nowhere")
	stdout, stderr, code := e.run(t, "--capsule", missing, "--task", "x")
	want := "error[E-IO-001]: " + missing + "/murmur.yaml: no such file or directory\n  hint: check the path\n"
	if code != 1 || stdout != "" || stderr != want {
		t.Errorf("= %d, %q, %q; want 1, \"\", %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(e.home, "records")); !os.IsNotExist(err) {
		t.Errorf("a refused launch made records: %v", err)
	}
}

func TestRunPortTaken_ERUN010(t *testing.T) {
	e := helloEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "x", "--port", strconv.Itoa(port))
	want := fmt.Sprintf("error[E-RUN-010]: the door could not bind 127.0.0.1:%d: address already in use\n  hint: free the port, or change network.internal_port or --port\n", port)
	if code != 1 || stdout != "" || stderr != want {
		t.Errorf("= %d, %q, %q; want 1 and %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".murmur")); !os.IsNotExist(err) {
		t.Errorf("a refused launch made the runtime directory: %v", err)
	}
}

func TestRunFailedTaskExit1_CLI5(t *testing.T) {
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: failer\nversion: \"1\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n",
		"script.yaml": "script_version: 1\nrules: []\n",
	})
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "anything")
	if code != 1 || !strings.HasSuffix(stdout, "error: no script rule matches the task\nstatus:  failed\n") {
		t.Errorf("= %d, %q", code, stdout)
	}
	if !strings.HasPrefix(stderr, "error[E-RUN-040]: the task ended failed: no script rule matches the task\n") {
		t.Errorf("stderr = %q", stderr)
	}
}

func TestRunVerboseLines_CLI3(t *testing.T) {
	e := helloEnv(t)
	stdout, _, code := e.run(t, "--capsule", e.dir, "--task", "hello", "-v")
	lines := strings.Split(stdout, "\n")
	wd, _ := filepath.EvalSymlinks(e.dir)
	ses := sesRe.FindString(lines[1])
	want := []string{
		"workdir: " + e.dir,
		"records: " + filepath.Join(e.home, "records", strings.TrimPrefix(wd, "/"), ses),
		"manifest: hello-shell v0.1.0",
		"driver: scripted (scripted)",
		"I can only list files.",
		"status:  ok",
	}
	if code != 0 || len(lines) < 8 || strings.Join(lines[2:8], "\n") != strings.Join(want, "\n") {
		t.Errorf("= %d, %q; want lines 3.. %q", code, stdout, want)
	}
}

// TestRunStoreForm_STORE3_ERUN047 runs an installed capsule by name and
// version, and refuses one whose bytes differ from the admitted sha256.
func TestRunStoreForm_STORE3_ERUN047(t *testing.T) {
	e := helloEnv(t)
	install := exec.Command(murBin, "install", "-g", e.dir)
	install.Dir = t.TempDir()
	install.Env = []string{"PATH=" + os.Getenv("PATH"), "MURMUR_HOME=" + e.home, "HOME=" + e.home}
	out, err := testmur.Combined(install)
	if err != nil {
		t.Fatalf("mur install: %v %s", err, out)
	}
	sha := regexp.MustCompile(`sha256:([0-9a-f]{64})`).FindStringSubmatch(string(out))[1]
	work := t.TempDir()
	stdout, stderr, code := e.run(t, "--capsule", "hello-shell", "--capsule-version", "0.1.0", "--capsule-sha256", sha,
		"--workdir", work, "--task", "list the files")
	if code != 0 || !strings.HasSuffix(stdout, "Files:\n$ ls -1\nExit code: 0\nStdout:\n\n\nStderr:\n\nstatus:  ok\n") {
		t.Errorf("store form = %d, %q, %q", code, stdout, stderr)
	}
	bad := strings.Repeat("0", 64)
	stdout, stderr, code = e.run(t, "--capsule", "hello-shell", "--capsule-version", "0.1.0", "--capsule-sha256", bad, "--task", "x")
	want := "error[E-RUN-047]: capsule 'hello-shell@0.1.0' resolved to bytes with sha256 " + sha + ", but it was admitted with sha256 " + bad + "\n"
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, want) {
		t.Errorf("= %d, %q, %q; want %q", code, stdout, stderr, want)
	}
	stdout, stderr, code = e.run(t, "--capsule", "hello-shell", "--capsule-version", "9.9.9", "--task", "x")
	if code != 1 || stderr != "error[E-RUN-008]: missing artifacts: hello-shell@9.9.9\n  hint: run `mur install` to install all manifest dependencies\n" {
		t.Errorf("= %d, %q, %q", code, stdout, stderr)
	}
}

// TestRunBindURL_DOOR1: under --bind the readiness line, the card and the
// running record carry the bound address (IPv6 in brackets), not 127.0.0.1,
// and the door answers there.
func TestRunBindURL_DOOR1(t *testing.T) {
	probe, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	}
	probe.Close()
	e := helloEnv(t)
	p := e.start(t, "--capsule", e.dir, "--json", "--bind", "::1", "--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
	var ready struct {
		SessionID string `json:"session_id"`
		URL       string `json:"url"`
	}
	if err := json.Unmarshal([]byte(p.line(t)), &ready); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^http://\[::1\]:\d+$`).MatchString(ready.URL) {
		t.Errorf("readiness url = %q, want http://[::1]:<port>", ready.URL)
	}
	resp, err := http.Get(ready.URL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatalf("the door does not answer at the reported url: %v", err)
	}
	var card struct {
		SupportedInterfaces []struct{ URL string } `json:"supportedInterfaces"`
	}
	json.NewDecoder(resp.Body).Decode(&card)
	resp.Body.Close()
	if len(card.SupportedInterfaces) != 2 || card.SupportedInterfaces[0].URL != ready.URL || card.SupportedInterfaces[1].URL != ready.URL {
		t.Errorf("card supportedInterfaces = %+v, want JSONRPC and HTTP+JSON at %s", card.SupportedInterfaces, ready.URL)
	}
	b, err := os.ReadFile(filepath.Join(e.home, "running", ready.SessionID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"url":"`+ready.URL+`"`) {
		t.Errorf("running record = %s, want url %s", b, ready.URL)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(); code != 0 {
		t.Errorf("exit code = %d (stderr %q)", code, p.stderr.String())
	}
}
