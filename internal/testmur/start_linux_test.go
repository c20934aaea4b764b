package testmur

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStartDiesWithTestBinary runs this test binary again; the child starts
// a command with Start that reports SIGTERM to a file and says its pid, and
// is then SIGKILLed. The command gets SIGTERM and is gone within 10 s.
func TestStartDiesWithTestBinary(t *testing.T) {
	if dir := os.Getenv("TESTMUR_ORPHAN"); dir != "" {
		orphanChild(t, dir)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartDiesWithTestBinary$")
	cmd.Env = append(os.Environ(), "TESTMUR_ORPHAN="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := StartFake(cmd); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "pid "))
	if err != nil {
		t.Fatalf("child said %q", line)
	}
	if !Gone(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("pid %d outlived the test binary that started it by 10 s", pid)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "signal")); err != nil || string(b) != "TERM\n" {
		t.Errorf("the command's signal = %q, %v; want TERM", b, err)
	}
}

// orphanChild is TestStartDiesWithTestBinary's child: it starts the command,
// says its pid once the command's trap is set, and waits to be killed.
func orphanChild(t *testing.T, dir string) {
	ready := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `trap 'echo TERM > signal; exit 0' TERM; echo > ready; while :; do sleep 0.1; done`)
	cmd.Dir = dir
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(ready); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("pid %d\n", cmd.Process.Pid)
	_ = cmd.Wait() // until the parent kills this process
}

// TestStartOutlivesCallerThread: a command started from a goroutine whose
// thread then ends (it locked it and returned) is not sent its
// parent-death signal, since Start forks on a thread of its own
// (golang/go#27505). The control, forked on the ending thread itself, is.
func TestStartOutlivesCallerThread(t *testing.T) {
	t.Parallel()
	viaStart := func(cmd *exec.Cmd) error { return Start(cmd) }
	onCaller := func(cmd *exec.Cmd) error {
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
		return cmd.Start() // testmur: direct start, the control
	}
	if sig := signalAfterThreadEnds(t, viaStart); sig != syscall.SIGKILL {
		t.Errorf("a command started by Start ended by %v once its caller's thread ended, want the test's SIGKILL", sig)
	}
	if sig := signalAfterThreadEnds(t, onCaller); sig != syscall.SIGTERM {
		t.Errorf("control: a command forked on the ending thread ended by %v, want its parent-death SIGTERM", sig)
	}
}

// signalAfterThreadEnds starts `sleep 1000` with start from a goroutine that
// locks its thread and returns, waits until that thread is gone, SIGKILLs
// the command and returns the signal it died of. A default-action signal
// decides a process's exit status when it is sent, so a parent-death SIGTERM
// sent at the thread's end wins over the later SIGKILL.
func signalAfterThreadEnds(t *testing.T, start func(*exec.Cmd) error) syscall.Signal {
	t.Helper()
	type started struct {
		cmd *exec.Cmd
		tid int
		err error
	}
	var s started
	for {
		ch := make(chan started, 1) // buffered: the goroutine never blocks on it
		go func() {
			goruntime.LockOSThread() // never unlocked: the thread ends with the goroutine
			cmd := exec.Command("sleep", "1000")
			if syscall.Gettid() == os.Getpid() {
				goruntime.UnlockOSThread() // the main thread never ends; try another
				ch <- started{}
				return
			}
			ch <- started{cmd: cmd, tid: syscall.Gettid(), err: start(cmd)}
		}()
		if s = <-ch; s.cmd != nil {
			break
		}
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	task := fmt.Sprintf("/proc/self/task/%d", s.tid)
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for _, err := os.Stat(task); err == nil; _, err = os.Stat(task) {
		if time.Now().After(deadline) {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
			t.Fatalf("thread %d did not end", s.tid)
		}
		<-tick.C
	}
	_ = s.cmd.Process.Kill()
	var ee *exec.ExitError
	if err := s.cmd.Wait(); !errors.As(err, &ee) {
		t.Fatalf("sleep ended %v", err)
	}
	return ee.Sys().(syscall.WaitStatus).Signal()
}
