package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/murhome"
)

// opsEnv is one test's $MURMUR_HOME and workdir, both real directories with
// symlinks resolved, for the trace/token/ps/stop tests.
type opsEnv struct {
	home, workdir string
}

func newOpsEnv(t *testing.T) *opsEnv {
	t.Helper()
	root := testmur.TempDir(t)
	e := &opsEnv{home: filepath.Join(root, "murmur-home"), workdir: filepath.Join(root, "work")}
	if err := os.MkdirAll(e.workdir, 0o700); err != nil {
		t.Fatal(err)
	}
	return e
}

// run runs the real mur binary in the workdir with MURMUR_HOME set and
// returns stdout, stderr and the exit code.
func (e *opsEnv) run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(murBin, args...)
	cmd.Dir = e.workdir
	cmd.Env = append(os.Environ(), "MURMUR_HOME="+e.home)
	return testmur.Exec(t, cmd)
}

// addTrace copies a trace fixture into session ses's records directory.
func (e *opsEnv) addTrace(t *testing.T, ses, fixture string) string {
	t.Helper()
	dir, err := murhome.SessionDir(e.home, e.workdir, ses)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, murhome.TraceFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeRecord writes a running record for ses.
func (e *opsEnv) writeRecord(t *testing.T, rec *murhome.Running) {
	t.Helper()
	if rec.Name == "" {
		rec.Name, rec.Version = "hello-shell", "0.1.0"
	}
	if rec.Workdir == "" {
		rec.Workdir = e.workdir
	}
	if rec.RecordsDir == "" {
		dir, err := murhome.SessionDir(e.home, e.workdir, rec.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		rec.RecordsDir = dir
	}
	if rec.StartedAt.IsZero() {
		rec.StartedAt = time.Now()
	}
	if err := murhome.WriteRunning(e.home, rec); err != nil {
		t.Fatal(err)
	}
}

func (e *opsEnv) recordExists(ses string) bool {
	_, err := os.Stat(murhome.RunningPath(e.home, ses))
	return err == nil
}

// fakeProc is a real long-running process a test owns; it is killed and reaped
// when the test ends, and the test fails if it is still there.
type fakeProc struct {
	cmd    *exec.Cmd
	start  string
	exited chan struct{} // closed once the process has been reaped
	err    error         // Wait's result, set before exited closes
}

// startProc starts `sh -c script` and reaps it as soon as it exits, so a
// signalled process does not linger as a zombie of the test.
func startProc(t *testing.T, script string) *fakeProc {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	if err := testmur.StartFake(cmd); err != nil {
		t.Fatal(err)
	}
	p := &fakeProc{cmd: cmd, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	start, err := murhome.StartTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	p.start = start
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
		if murhome.Check(cmd.Process.Pid, p.start) != murhome.Gone {
			t.Errorf("pid %d is still running after the test", cmd.Process.Pid)
		}
	})
	return p
}

func (p *fakeProc) pid() int { return p.cmd.Process.Pid }

// signaled waits for the process to be reaped and returns the signal that
// ended it, or -1.
func (p *fakeProc) signaled() syscall.Signal {
	<-p.exited
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return ws.Signal()
		}
	}
	return -1
}

// goneProc returns the pid and start time of a process that has ended and
// been reaped.
func goneProc(t *testing.T) (int, string) {
	t.Helper()
	cmd := exec.Command("true")
	if err := testmur.StartFake(cmd); err != nil {
		t.Fatal(err)
	}
	start, _ := murhome.StartTime(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, start
}

// sesID builds a valid session id ending in suffix (hex).
func sesID(prefix12, suffix string) string {
	return "ses_" + prefix12 + "70008000" + strings.Repeat("0", 12-len(suffix)) + suffix
}
