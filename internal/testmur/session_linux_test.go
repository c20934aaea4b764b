package testmur

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInSession: a command started in a session of its own is listed by
// its session id, as its stat's "<pid> (<comm>)", while it lives and not
// once it is reaped.
func TestInSession(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	want := fmt.Sprintf("%d (sleep)", pid)
	if got := InSession(pid); len(got) != 1 || got[0] != want {
		t.Errorf("InSession(%d) = %q, want [%q]", pid, got, want)
	}
	if got := Procs(func(_ []string, cmdline []byte) bool { return strings.HasPrefix(string(cmdline), "sleep\x0060\x00") }); !slices.Contains(got, want) {
		t.Errorf("Procs(cmdline sleep 60) = %q, want it to hold %q", got, want)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if got := InSession(pid); len(got) != 0 {
		t.Errorf("InSession(%d) after the reap = %q, want none", pid, got)
	}
}

// TestDirs: the project directory exists under a resolved root, home is
// its sibling "home" and is not made.
func TestDirs(t *testing.T) {
	t.Parallel()
	dir, home := Dirs(t, "proj")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("Dirs dir %s: %v", dir, err)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("Dirs home %s exists (%v), want it left for mur", home, err)
	}
	if !strings.HasSuffix(dir, "/proj") || !strings.HasSuffix(home, "/home") || strings.TrimSuffix(dir, "/proj") != strings.TrimSuffix(home, "/home") {
		t.Errorf("Dirs = %s, %s; want siblings proj and home", dir, home)
	}
}

// TestLeft: a session's process is left until it ends, which Left waits for
// within its bound; one in except is not counted.
func TestLeft(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := StartFake(cmd); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if got := Left(pid, 30*time.Millisecond); len(got) != 1 || got[0] != fmt.Sprintf("%d (sleep)", pid) {
		t.Errorf("Left(%d) while it sleeps = %q, want it", pid, got)
	}
	if got := Left(pid, 0, pid); got != nil {
		t.Errorf("Left(%d, except itself) = %q, want nil", pid, got)
	}
	reaped := make(chan struct{})
	go func() { _ = cmd.Wait(); close(reaped) }()
	_ = cmd.Process.Kill()
	if got := Left(pid, LeftBound); got != nil {
		t.Errorf("Left(%d) after its kill = %q, want nil", pid, got)
	}
	<-reaped
}

// TestWithin: a condition that comes true is seen; one that never does is
// given up on after the bound.
func TestWithin(t *testing.T) {
	t.Parallel()
	n := 0
	if !Within(time.Minute, func() bool { n++; return n == 3 }) || n != 3 {
		t.Errorf("Within saw the condition after %d looks, want 3", n)
	}
	if Within(20*time.Millisecond, func() bool { return false }) {
		t.Error("Within(false) = true")
	}
}

// TestOf: a process working under the root is found, and one carrying an
// entry of env is found wherever it works; neither is once it has ended.
func TestOf(t *testing.T) {
	t.Parallel()
	root := TempDir(t)
	inRoot := exec.Command("sleep", "61")
	inRoot.Dir = root
	marked := exec.Command("sleep", "62")
	marked.Dir, marked.Env = "/", append(os.Environ(), "TESTMUR_OF=yes")
	for _, c := range []*exec.Cmd{inRoot, marked} {
		if err := StartFake(c); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{fmt.Sprintf("%d (sleep)", inRoot.Process.Pid), fmt.Sprintf("%d (sleep)", marked.Process.Pid)}
	got := Of(root, "TESTMUR_OF=yes")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Of = %q, want %q", got, want)
	}
	for _, c := range []*exec.Cmd{inRoot, marked} {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	if got := Of(root, "TESTMUR_OF=yes"); len(got) != 0 {
		t.Errorf("Of after both ended = %q, want none", got)
	}
}
