package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
)

// viewCmd is mur view with its own MURMUR_HOME.
func viewCmd(home string, args ...string) *exec.Cmd {
	cmd := exec.Command(murBin, append([]string{"view"}, args...)...)
	cmd.Env = testmur.Env(home)
	return cmd
}

// TestViewUsageAndRefusals: --help prints the usage and exits 0; bad flags
// and arguments are usage errors (exit 2); an id that is no full frm_/ses_
// id, or one that neither runs nor left records, is a coded error (exit 1)
// and nothing is served.
func TestViewUsageAndRefusals(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	out, errOut, code := testmur.Exec(t, viewCmd(home, "--help"))
	if code != 0 || errOut != "" {
		t.Fatalf("mur view --help = %d %q", code, errOut)
	}
	golden.Check(t, "view-usage", out)
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--port", "70000"}, 2, "error: --port 70000 is not a port number (0 to 65535)\nrun 'mur view --help' for usage\n"},
		{[]string{"frm_01a233762c3e7031b22ec3927351e056", "ses_01a233762c5270889a92fa2de79957ec"}, 2, "error: unexpected argument 'ses_01a233762c5270889a92fa2de79957ec'\nrun 'mur view --help' for usage\n"},
		{[]string{"--bogus"}, 2, "error: unknown flag --bogus\nrun 'mur view --help' for usage\n"},
		{[]string{"crew"}, 1, "error[E-VIEW-001]: 'crew' is not a formation id or a session id: it starts with neither 'frm_' nor 'ses_'\n  hint: name a formation (frm_…) or a session (ses_…) by its full id; mur ps lists the running ones\n"},
		{[]string{"frm_01a233762c3e7031b22ec3927351e056"}, 1, "error[E-VIEW-002]: no formation frm_01a233762c3e7031b22ec3927351e056 is running or recorded under " + home + "\n  hint: name a formation (frm_…) or a session (ses_…) by its full id; mur ps lists the running ones\n"},
		{nil, 1, "error[E-VIEW-002]: no formation or session is running on this machine, so there is nothing to view\n  hint: name a formation or a session by its full id to view its records\n"},
	} {
		out, errOut, code := testmur.Exec(t, viewCmd(home, c.args...))
		if code != c.code || out != "" || errOut != c.stderr {
			t.Errorf("mur view %q = %d, stdout %q, stderr %q; want %d, %q", c.args, code, out, errOut, c.code, c.stderr)
		}
	}
}

// helloSession runs examples/hello once and returns its MURMUR_HOME and
// session id.
func helloSession(t *testing.T) (home, ses string) {
	t.Helper()
	e := helloEnv(t)
	if _, errOut, code := e.run(t, "--task", "list the files"); code != 0 {
		t.Fatalf("mur run = %d %s", code, errOut)
	}
	wd, _ := filepath.EvalSymlinks(e.dir)
	dirs, _ := filepath.Glob(filepath.Join(e.home, "records", strings.TrimPrefix(wd, "/"), "ses_*"))
	if len(dirs) != 1 {
		t.Fatalf("records group holds %q, want one session", dirs)
	}
	return e.home, filepath.Base(dirs[0])
}

// TestViewOpenKeepsTokenOffArgv: --open hands the browser opener a 0600
// page that redirects to the URL, never the URL itself, so the token stays
// off every command line; the page is removed when the view ends.
func TestViewOpenKeepsTokenOffArgv(t *testing.T) {
	t.Parallel()
	home, ses := helloSession(t)
	bin := t.TempDir()
	fifo := filepath.Join(bin, "opened")
	testmur.FIFO(t, fifo)
	// The fake opener reports its argv, the file's mode and the file's text
	// through the fifo, so the test waits on it rather than on a clock.
	opener := "#!/bin/sh\n{ printf 'argv: %s\\n' \"$*\"; stat -c 'mode: %a' \"$1\"; cat \"$1\"; } > " + fifo + "\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(opener), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := viewCmd(home, ses, "--open", "--json")
	cmd.Env = append(cmd.Env, "PATH="+bin+":"+os.Getenv("PATH"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testmur.Buffer
	cmd.Stderr = &stderr
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	br := bufio.NewReader(stdout)
	first, err := br.ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, br); _ = cmd.Wait(); close(done) }()
	if err != nil {
		t.Fatalf("mur view printed no line: %v\n%s", err, stderr.String())
	}
	var vl struct{ URL string }
	if err := json.Unmarshal([]byte(first), &vl); err != nil {
		t.Fatal(err)
	}
	_, token, _ := strings.Cut(vl.URL, "/?token=")
	report := string(testmur.ReadFIFO(t, fifo, cmd.Process)) // once the opener has written

	argv, rest, _ := strings.Cut(report, "\n")
	page := strings.TrimPrefix(argv, "argv: ")
	if token == "" || strings.Contains(argv, token) || !strings.HasPrefix(filepath.Base(page), "mur-view-") || !strings.HasSuffix(page, ".html") {
		t.Errorf("the opener's argv = %q (token %q)", argv, token)
	}
	if !strings.HasPrefix(rest, "mode: 600\n") || !strings.Contains(rest, `<meta http-equiv="refresh" content="0;url=`+vl.URL+`">`) {
		t.Errorf("the page the opener got:\n%s", rest)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-done
	if c := cmd.ProcessState.ExitCode(); c != 0 {
		t.Errorf("mur view exit = %d\n%s", c, stderr.String())
	}
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Errorf("the redirect page %s is still there after the view ended: %v", page, err)
	}
}

// TestViewOfEndedSession: mur view <ses> of a session that ran and ended
// serves its page from its records: the --json line names it, the state API
// shows its one member ended ok with its task completed, a taken --port is
// E-VIEW-003, and SIGTERM ends the view with exit 0.
func TestViewOfEndedSession(t *testing.T) {
	t.Parallel()
	home, ses := helloSession(t)
	cmd := viewCmd(home, ses, "--json")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testmur.Buffer
	cmd.Stderr = &stderr
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	br := bufio.NewReader(stdout)
	first, err := br.ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, br); _ = cmd.Wait(); close(done) }()
	if err != nil {
		t.Fatalf("mur view printed no line: %v\n%s", err, stderr.String())
	}
	var vl struct {
		ID, Kind, URL string
		PID           int
	}
	if err := json.Unmarshal([]byte(first), &vl); err != nil || vl.ID != ses || vl.Kind != "session" || vl.PID != cmd.Process.Pid ||
		!strings.HasPrefix(first, `{"id":"`+ses+`","kind":"session","pid":`) {
		t.Fatalf("--json line = %q (%v)", first, err)
	}
	base, token, _ := strings.Cut(vl.URL, "/?token=")
	resp, err := http.Get(base + "/api/state?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Live    bool
		Members []struct{ Name, State, Exit, Capsule string }
		Tasks   []struct{ State string }
	}
	err = json.NewDecoder(resp.Body).Decode(&snap)
	resp.Body.Close()
	if err != nil || snap.Live || len(snap.Members) != 1 || snap.Members[0].State != "ended" || snap.Members[0].Exit != "ok" ||
		snap.Members[0].Capsule != "hello-shell" || len(snap.Tasks) != 1 || snap.Tasks[0].State != "completed" {
		t.Errorf("state = %+v (%v)", snap, err)
	}
	port := base[strings.LastIndexByte(base, ':')+1:]
	_, errOut, code := testmur.Exec(t, viewCmd(home, ses, "--port", port))
	if code != 1 || !strings.HasPrefix(errOut, "error[E-VIEW-003]: the view could not listen on 127.0.0.1:"+port+": address already in use\n") {
		t.Errorf("a taken --port = %d %q", code, errOut)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-done
	if c := cmd.ProcessState.ExitCode(); c != 0 {
		t.Errorf("mur view after SIGTERM exit = %d, want 0\n%s", c, stderr.String())
	}
	if ln, err := net.Listen("tcp", "127.0.0.1:"+port); err != nil {
		t.Errorf("the view's port is still held after it exited: %v", err)
	} else {
		ln.Close()
	}
}
