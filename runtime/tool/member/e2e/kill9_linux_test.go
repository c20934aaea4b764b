package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
)

// escape starts two processes that leave the shell's process group and
// session — a setsid'd grandchild and a double-forked daemon — each writing
// its pid into the workdir, and returns once both have. then runs
// after.
func escape(then string) string {
	return `setsid sh -c 'echo $$ > gc.pid; exec sleep 3111' & ` +
		`(sh -c 'echo $$ > d.pid; exec sleep 3112' &) ; ` +
		`until [ -s gc.pid ] && [ -s d.pid ]; do sleep 0.01; done` + then
}

// pidsIn reads the pids escape wrote in dir; the test SIGKILLs them at its
// end whatever happened.
func pidsIn(t *testing.T, dir string) []int {
	t.Helper()
	var pids []int
	for _, f := range []string{"gc.pid", "d.pid"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("%s = %q", f, b)
		}
		pids = append(pids, pid)
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return pids
}

// TestKill9LeavesNothing is the kill -9 matrix: the launcher, the
// entry or a peer is SIGKILLed while both members' shell tools have left a
// setsid'd grandchild and a double-forked daemon behind; 10 s after the
// formation ends no process of it is left — members, escaped processes,
// launcher, anything working under the test's directory or carrying its
// MURMUR_HOME or a session id (polled for absence, never slept).
func TestKill9LeavesNothing(t *testing.T) {
	for _, victim := range []string{"launcher", "entry", "peer"} {
		t.Run(victim, func(t *testing.T) {
			t.Parallel()
			p := newProject(t)
			// The entry's launch task holds the formation up: its command waits on
			// hold, which nobody opens (with --task the entry ends with its task),
			// in a grandchild (bash → cat) whose pid it writes.
			ready, hold := p.fifo(t, "ready"), p.fifo(t, "hold")
			p.install(t,
				capsule{name: "lead", shell: true, contain: "scoped", extra: peerExtra, script: fmt.Sprintf(`script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: %q}}]
      - text: holding
`, escape("; cat "+hold+" & echo $! > cat.pid; echo up > "+ready+"; wait"))},
				capsule{name: "worker", shell: true, contain: "scoped", extra: peerExtra, script: fmt.Sprintf(`script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: %q}}]
      - text: escaped
`, escape(""))},
			)
			p.roster(t, []string{"lead", "worker"}, "lead:worker")
			l := p.start(t, "escape")
			l.readAll(t, ready)
			workerPID, workerSes, workerURL, _ := l.peer(t, "worker")
			c := operator(t, p, workerSes, workerURL)
			if st := settle(t, c, send(t, c, "escape").ID); st != a2a.TaskStateCompleted {
				t.Fatalf("the worker's task ended %s; stderr:\n%s", st, l.stderr.String())
			}
			workerDir := l.form.Peers[0].Workdir
			all := append([]int{l.cmd.Process.Pid, l.entry.PID, workerPID, catPID(t, p.dir)}, append(pidsIn(t, p.dir), pidsIn(t, workerDir)...)...)
			// Everything of the formation: what works under the test's root
			// or carries its MURMUR_HOME or one of its session ids — found
			// by that, not by the pids the test knows (which it must find).
			root := filepath.Dir(p.dir)
			marks := []string{"MURMUR_HOME=" + p.home, "MURMUR_SESSION_ID=" + l.entry.SessionID, "MURMUR_SESSION_ID=" + workerSes}
			found := testmur.Of(root, marks...)
			for _, pid := range all {
				if !slices.ContainsFunc(found, func(p string) bool { return strings.HasPrefix(p, strconv.Itoa(pid)+" (") }) {
					t.Fatalf("pid %d is not among the formation's processes %q: the scan cannot see it", pid, found)
				}
			}

			switch victim {
			case "launcher":
				_ = syscall.Kill(l.cmd.Process.Pid, syscall.SIGKILL)
			case "entry":
				_ = syscall.Kill(l.entry.PID, syscall.SIGKILL)
			case "peer":
				_ = syscall.Kill(workerPID, syscall.SIGKILL)
				if !testmur.Gone(workerPID) {
					t.Fatalf("the worker outlived SIGKILL")
				}
				// A peer's death does not end the formation; its operator does.
				_ = syscall.Kill(l.cmd.Process.Pid, syscall.SIGTERM)
			}
			for range l.lines {
			}
			<-l.done // the formation has ended: its launcher is reaped
			ended := time.Now()
			var left []string
			if !testmur.Within(10*time.Second, func() bool { left = testmur.Of(root, marks...); return len(left) == 0 }) {
				t.Fatalf("kill -9 %s: %v after the formation ended, still running: %s", victim, time.Since(ended).Round(time.Millisecond), strings.Join(left, ", "))
			}
		})
	}
}

// catPID reads the pid of the entry's grandchild (bash → cat).
func catPID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cat.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("cat.pid = %q", b)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}
