package supervisor

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// start starts cmd supervised, dying with the test binary, and stops it
// when the test ends.
func start(t *testing.T, cmd *exec.Cmd, grace time.Duration) *Proc {
	t.Helper()
	p, err := Start(cmd, Options{Grace: grace, DieWithParent: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill(); <-p.Done() })
	return p
}

func await(t *testing.T, p *Proc) Exit {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the child was not reaped within 30s")
	}
	return p.Exit()
}

// TestExit: an exit and a signal are decoded once, and print themselves.
func TestExit(t *testing.T) {
	t.Parallel()
	e := await(t, start(t, exec.Command("sh", "-c", "exit 3"), time.Second))
	if e != (Exit{Code: 3}) || e.String() != "status 3" || e.ShellCode() != 3 || !e.Finished() {
		t.Errorf("exit 3: %+v %q %d", e, e, e.ShellCode())
	}
	p := start(t, exec.Command("sleep", "30"), time.Second)
	p.Stop()
	e = await(t, p)
	if e != (Exit{Code: -1, Signal: syscall.SIGTERM}) || e.String() != "signal SIGTERM" || e.ShellCode() != 143 {
		t.Errorf("SIGTERM: %+v %q %d", e, e, e.ShellCode())
	}
	if Unfinished.Finished() || Unfinished.String() != "not ended" || ExitOf(nil) != Unfinished {
		t.Errorf("Unfinished = %+v %q", Unfinished, Unfinished)
	}
	if got := SignalName(syscall.SIGUSR1); got != "SIG10" {
		t.Errorf("SignalName(SIGUSR1) = %q", got)
	}
}

// TestStopKillsTheGroup: a child that ignores SIGTERM, and the grandchild
// it started, are SIGKILLed together once the grace has passed.
func TestStopKillsTheGroup(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", `trap "" TERM; sleep 30 & echo ready; wait`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, cmd, 50*time.Millisecond)
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" { // the trap is set
		t.Fatalf("first line %q, %v", line, err)
	}
	p.Stop()
	if e := await(t, p); e.Signal != syscall.SIGKILL {
		t.Fatalf("exit = %v, want signal SIGKILL", e)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := syscall.Kill(-p.Pid(), 0)
		if errors.Is(err, syscall.ESRCH) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child's group still has a process: kill(-pgid, 0) = %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestContextStops: the end of a CommandContext's context stops the child
// as Stop does (Cmd.Cancel).
func TestContextStops(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	p := start(t, exec.CommandContext(ctx, "sleep", "30"), time.Second)
	cancel()
	if e := await(t, p); e.Signal != syscall.SIGTERM {
		t.Errorf("exit = %v, want signal SIGTERM", e)
	}
	p.Stop() // after the reaping: nothing
	p.Kill()
}

// TestInParentGroup: a child left in mur's group is killed alone.
func TestInParentGroup(t *testing.T) {
	t.Parallel()
	p, err := Start(exec.Command("sleep", "30"), Options{InParentGroup: true, DieWithParent: true})
	if err != nil {
		t.Fatal(err)
	}
	if pg, err := syscall.Getpgid(p.Pid()); err != nil || pg != syscall.Getpgrp() {
		t.Errorf("the child's group = %d (%v), want the test's %d", pg, err, syscall.Getpgrp())
	}
	p.Kill()
	if e := await(t, p); e.Signal != syscall.SIGKILL {
		t.Errorf("exit = %v, want signal SIGKILL", e)
	}
}
