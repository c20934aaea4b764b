package e2e

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
)

// TestFullMeshLaunchHonoursSIGTERM: a roster of 256 members with
// reachability: all — each peer's credentials line carries 254 tokens,
// several times what a pipe holds — starts its members rather than hang
// writing that line before any reader exists, and a SIGTERM while they
// start ends the launcher 143 with every member reaped (LAUNCH-1, CHAN-2,
// READY-5).
func TestFullMeshLaunchHonoursSIGTERM(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrewGlobal(t, w)
	writeRoster(t, w, "mesh", bigRoster(256, false)+"reachability: all\n")
	l := w.start(t, ".", "run", "--roster", "mesh", "--task", "x", "--json")
	root := []byte("\x00--store-root\x00" + filepath.Join(w.dir, "mesh") + "\x00")
	children := func() []string { // the formation's members, wherever they were reparented
		return testmur.Procs(func(_ []string, cmdline []byte) bool { return bytes.Contains(cmdline, root) })
	}
	testmur.Eventually(t, time.Minute, func() bool { return len(children()) > 0 },
		"no member of the 256 started (stderr tail %q)", tail(l.stderr.String()))
	sent := time.Now()
	if err := l.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.done:
	case <-time.After(2 * time.Minute): // a guard only: the cleanup kills it
		t.Fatalf("the launcher ignored SIGTERM (stderr tail %q)", tail(l.stderr.String()))
	}
	took := time.Since(sent)
	if code := l.wait(); code != 143 {
		t.Errorf("launcher exit %d, want 143 (stderr tail %q)", code, tail(l.stderr.String()))
	}
	if !strings.Contains(l.stderr.String(), "[mur run] the formation launch was interrupted by SIGTERM before") {
		t.Errorf("stderr tail %q, want the interruption", tail(l.stderr.String()))
	}
	if left := children(); len(left) > 0 { // FCLI-4: reaped before the launcher exits
		t.Errorf("members left after the launcher's exit: %v", left)
	}
	t.Logf("exit %s after SIGTERM", took.Round(time.Millisecond))
}
