package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
)

// escapeCommand starts two processes that leave the shell's process group:
// a setsid'd grandchild and a double-forked daemon, each writing
// its pid, then reports on the ready fifo and waits on go.
const escapeCommand = `setsid sh -c 'echo $$ > gc.pid; exec sleep 311' & ` +
	`(sh -c 'echo $$ > d.pid; exec sleep 312' &) ; ` +
	`until [ -s gc.pid ] && [ -s d.pid ]; do sleep 0.01; done; echo ready > ready`

// escapees reads the two pids escapeCommand wrote; the test kills them at
// its end whatever happened.
func escapees(t *testing.T, dir string) []int {
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

// sleepingEscape is a queue/sleep capsule whose launch task runs
// escapeCommand and answers; the session then waits for more work.
func sleepingEscape(t *testing.T) *runEnv {
	t.Helper()
	return blockingCapsule(t, "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n", escapeCommand)
}

// Whatever ends the session, a process its shell tool
// started that left the process group (setsid, a double fork) ends with it
// (the seed: "the session's end kills it").
func TestRunEndKillsEscapedProcesses_ISSUE9(t *testing.T) {
	t.Run("task_done", func(t *testing.T) {
		e := blockingCapsule(t, "", escapeCommand)
		p := e.start(t, "--capsule", e.dir, "--task", "escape")
		testmur.ReadFIFO(t, filepath.Join(e.dir, "ready"), p.cmd.Process)
		pids := escapees(t, e.dir)
		if code := p.wait(); code != 0 {
			t.Errorf("exit code = %d (stderr %q)", code, p.stderr.String())
		}
		assertGone(t, pids)
	})
	t.Run("SIGTERM", func(t *testing.T) {
		e := sleepingEscape(t)
		p := e.start(t, "--capsule", e.dir, "--task", "escape")
		testmur.ReadFIFO(t, filepath.Join(e.dir, "ready"), p.cmd.Process)
		pids := escapees(t, e.dir)
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		p.wait()
		assertGone(t, pids)
	})
}

// `mur stop` ends a session whose tools left processes
// outside their group; its residue line is true. Under SIGTERM the session
// ends them itself: nothing is left. Under an immediate SIGKILL the session
// cannot: mur stop finds them (MURMUR_SESSION_ID), kills them and says so.
func TestStopResidue_CLI13(t *testing.T) {
	for _, c := range []struct {
		timeout string
		killed  bool
	}{{"10", false}, {"0", true}} {
		t.Run("timeout="+c.timeout, func(t *testing.T) {
			e := sleepingEscape(t)
			p := e.start(t, "--capsule", e.dir, "--task", "escape")
			p.line(t) // murmur: url
			ses := strings.TrimPrefix(p.line(t), "session: ")
			testmur.ReadFIFO(t, filepath.Join(e.dir, "ready"), p.cmd.Process)
			pids := escapees(t, e.dir)
			cmd := e.command()
			cmd.Args = []string{murBin, "stop", "--timeout", c.timeout, ses}
			out, errOut, code := testmur.Exec(t, cmd)
			p.wait()
			if code != 0 {
				t.Fatalf("mur stop = %d, %q, %q", code, out, errOut)
			}
			residue := out[strings.LastIndex(out, "residue: "):]
			want := "residue: nothing else was left running\n"
			if c.killed {
				want = "residue: sleep (pid " + strconv.Itoa(pids[0]) + "): killed, sleep (pid " + strconv.Itoa(pids[1]) + "): killed\n"
				if !strings.Contains(residue, "(pid "+strconv.Itoa(pids[0])+"): killed") || !strings.Contains(residue, "(pid "+strconv.Itoa(pids[1])+"): killed") {
					t.Errorf("residue line = %q, want both escaped processes killed (%q, in any order)", residue, want)
				}
			} else if residue != want {
				t.Errorf("residue line = %q, want %q (stdout %q)", residue, want, out)
			}
			assertGone(t, pids)
		})
	}
}

// assertGone fails for each pid still alive 10 s on (polled, never slept).
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	start := time.Now()
	for _, pid := range pids {
		if !testmur.Gone(pid) {
			t.Errorf("pid %d still runs %v after the session ended (issue 9)", pid, time.Since(start).Round(time.Second))
		}
	}
}
