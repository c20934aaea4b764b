package testmur

import (
	"os/exec"
	"testing"
)

// TestEndedLeavesTheReaping: ended's channel closes once the process has
// exited, and the process is still its owner's to reap, exit code and all.
func TestEndedLeavesTheReaping(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", "exit 3")
	if err := StartFake(cmd); err != nil {
		t.Fatal(err)
	}
	exited, stop := ended(cmd.Process)
	<-exited
	stop()
	if err := cmd.Wait(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
		t.Errorf("Wait after ended = %v, want exit status 3", err)
	}
	if exited, stop := ended(cmd.Process); true { // reaped: ended at once
		<-exited
		stop()
	}
}

// TestEndedStops: stop ends the watch of a process that runs on, and the
// channel stays open.
func TestEndedStops(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "1000")
	if err := StartFake(cmd); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	exited, stop := ended(cmd.Process)
	stop() // returns once the watching goroutine has
	select {
	case <-exited:
		t.Error("ended's channel closed for a process that still runs")
	default:
	}
}
