package testmur

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestExec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script, stdout, stderr string
		code                   int
	}{
		{"echo out; echo err >&2", "out\n", "err\n", 0},
		{"printf x; exit 3", "x", "", 3},
		{"kill -KILL $$", "", "", -1},
	}
	for _, tt := range tests {
		out, errOut, code := Exec(t, exec.Command("sh", "-c", tt.script))
		if out != tt.stdout || errOut != tt.stderr || code != tt.code {
			t.Errorf("Exec(%q) = %q, %q, %d; want %q, %q, %d", tt.script, out, errOut, code, tt.stdout, tt.stderr, tt.code)
		}
	}
}

func TestEnv(t *testing.T) {
	t.Setenv("MURMUR_TESTMUR_STRAY", "1")
	t.Setenv("TESTMUR_KEPT", "1")
	env := Env("/h", "A=1", "B=2")
	if !slices.Contains(env, "TESTMUR_KEPT=1") {
		t.Error("Env() dropped a variable that is not MURMUR_")
	}
	var murmur []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "MURMUR_") {
			murmur = append(murmur, kv)
		}
	}
	if !slices.Equal(murmur, []string{"MURMUR_HOME=/h"}) || !slices.Equal(env[len(env)-3:], []string{"MURMUR_HOME=/h", "A=1", "B=2"}) {
		t.Errorf("Env() MURMUR_ variables %q, tail %q", murmur, env[len(env)-3:])
	}
}

func TestBuffer(t *testing.T) {
	t.Parallel()
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { _, _ = b.Write([]byte("ab")) })
		wg.Go(func() { _ = b.String() })
	}
	wg.Wait()
	if got := b.String(); got != strings.Repeat("ab", 8) {
		t.Errorf("String() = %q", got)
	}
}

func TestAlive(t *testing.T) {
	t.Parallel()
	if !Alive(os.Getpid()) {
		t.Error("Alive(self) = false")
	}
	cmd := exec.Command("true")
	if err := RunCmd(cmd); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Errorf("Alive(reaped %d) = true", cmd.Process.Pid)
	}
}

func TestPipe(t *testing.T) {
	t.Parallel()
	fd, w := Pipe(t)
	r := os.NewFile(uintptr(fd), "pipe")
	defer r.Close()
	if _, err := w.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "hi" {
		t.Errorf("read %q, %v; want \"hi\"", buf[:n], err)
	}
}

func TestTempDir(t *testing.T) {
	t.Parallel()
	dir := TempDir(t)
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil || resolved != dir || !filepath.IsAbs(dir) {
		t.Errorf("TempDir() = %q, resolved %q, %v; want an absolute path with no symlink", dir, resolved, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("TempDir() %q is no directory: %v", dir, err)
	}
}
