package testmur

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFIFOReleases: a reader and a writer still blocked opening a test's
// fifos when it ends are let go by FIFO's cleanup.
func TestFIFOReleases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var in, out string
	var reader, writer *exec.Cmd
	ok := t.Run("blocked", func(t *testing.T) {
		in, out = FIFO(t, filepath.Join(dir, "in")), FIFO(t, filepath.Join(dir, "out"))
		reader, writer = exec.Command("cat", in), exec.Command("sh", "-c", "echo up > "+out)
		for _, c := range []*exec.Cmd{reader, writer} {
			if err := StartFake(c); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []*exec.Cmd{reader, writer} {
			waitPartner(t, c.Process.Pid)
		}
	}) // its cleanups release both
	for _, c := range []*exec.Cmd{reader, writer} {
		if !ok && c != nil && c.Process != nil {
			_ = c.Process.Kill() // not known to be blocked: perhaps not released
		}
	}
	for _, c := range []*exec.Cmd{reader, writer} {
		if c == nil || c.Process == nil {
			continue
		}
		waited := make(chan error, 1) // buffered: the waiter never blocks
		go func() { waited <- c.Wait() }()
		select {
		case err := <-waited:
			if err != nil && c == reader {
				t.Errorf("%v after the release: %v", c.Args, err)
			}
		case <-time.After(30 * time.Second):
			_ = c.Process.Kill()
			<-waited
			t.Errorf("%v was still blocked 30 s after the test's end", c.Args)
		}
	}
}

// waitPartner waits until process pid blocks opening a fifo that has no
// process at its other end (Linux: its wchan is wait_for_partner); no event
// says so, so /proc is looked at again and again.
func waitPartner(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/wchan", pid))
		switch w := strings.TrimSpace(string(b)); {
		case err == nil && w == "wait_for_partner":
			return
		case time.Now().After(deadline):
			t.Fatalf("pid %d did not block on its fifo (wchan %q, %v)", pid, w, err)
		}
		<-tick.C
	}
}
