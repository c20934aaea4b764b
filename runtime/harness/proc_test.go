package harness_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/harness"
)

// start runs a shell script as a harness process.
func start(t *testing.T, script string, stdin string, stderr *os.File) *harness.Process {
	t.Helper()
	p, err := harness.Start(harness.Spawn{Argv: []string{"/bin/sh", "-c", script}, Env: []string{"PATH=/bin:/usr/bin"},
		Dir: t.TempDir(), Stdin: []byte(stdin), Stderr: stderr})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// drain reads every stdout line.
func drain(p *harness.Process) []string {
	var out []string
	for l := range p.Lines() {
		out = append(out, string(l))
	}
	return out
}

// TestProcessGroupEnds is PROC-9: the prompt arrives on stdin, stdout is
// read line by line, stderr goes to the log, and once the harness exits
// anything it left in its group is killed and reaped.
func TestProcessGroupEnds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child")
	logf, err := os.Create(filepath.Join(dir, "harness-1.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	p := start(t, "sleep 30 & echo $! > "+pidFile+"; cat; echo; echo second; echo oops >&2; exit 4", "the prompt", logf)
	lines := drain(p)
	exit := p.Wait()
	if strings.Join(lines, "|") != "the prompt|second" || exit.Code == nil || *exit.Code != 4 || exit.Signal != "" {
		t.Errorf("lines %q, exit %+v; want the prompt, second and status 4", lines, exit)
	}
	b, _ := os.ReadFile(pidFile)
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if child == 0 || !testmur.Gone(child) {
		t.Errorf("the group's sleep %d is still running after its leader exited", child)
	}
	if b, _ := os.ReadFile(logf.Name()); string(b) != "oops\n" {
		t.Errorf("stderr log = %q", b)
	}
}

// TestInterrupt is PROC-16: SIGTERM to the group, and SIGKILL after the
// grace when the harness ignores it.
func TestInterrupt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, script, signal string }{
		{"term", "echo ready; exec sleep 30", "SIGTERM"},
		{"kill after the grace", "trap '' TERM; echo ready; sleep 30; sleep 30", "SIGKILL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, c.script, "", nil)
			if l := <-p.Lines(); string(l) != "ready" {
				t.Fatalf("first line %q", l)
			}
			p.Interrupt(300 * time.Millisecond)
			drain(p)
			exit := p.Wait()
			if exit.Code != nil || exit.Signal != c.signal {
				t.Errorf("exit %+v, want %s", exit, c.signal)
			}
			if !testmur.Gone(p.PID()) {
				t.Errorf("harness %d still running", p.PID())
			}
		})
	}
}
