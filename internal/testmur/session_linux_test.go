package testmur

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
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
