package testmur

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Exec runs cmd to its end (started by Start), capturing its stdout and
// stderr (cmd's own Stdout and Stderr must be unset), and returns them with
// its exit code (-1 when a signal ended it). A command that does not start,
// or whose end cannot be read, stops the test.
func Exec(t testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := Start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("run %q: %v", cmd.Args, err)
	}
	return out.String(), errb.String(), code
}

// Env returns this process's environment without any MURMUR_ variable, then
// MURMUR_HOME=home, then extra: what a test's mur sees.
func Env(home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MURMUR_") {
			env = append(env, kv)
		}
	}
	return append(append(env, "MURMUR_HOME="+home), extra...)
}

// Buffer is a bytes.Buffer safe for concurrent use: a child's output that
// the test reads while the child still writes.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Alive reports whether pid is a live process: it exists and is no zombie
// (an orphan's zombie waits for init to reap it).
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z' && s[i+2] != 'X'
}

// Gone reports whether pid is no live process within LeftBound.
func Gone(pid int) bool { return Within(LeftBound, func() bool { return !Alive(pid) }) }

// WaitOpen waits until process pid holds path open (Linux: its
// /proc/<pid>/fd), so a test knows the process reached the read it blocks
// in; false when pid ends first or 30 s pass. There is no event for another
// process opening a file, so /proc is looked at again and again.
func WaitOpen(pid int, path string) bool {
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	for Alive(pid) && time.Now().Before(deadline) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if target, err := os.Readlink(dir + "/" + e.Name()); err == nil && target == path {
				return true
			}
		}
		<-tick.C
	}
	return false
}

// Pipe returns a fresh descriptor number for a pipe's read end, which this
// process owns and may hand to code that takes a descriptor (a member's
// channel or lifeline), and the write end, which the test holds as the
// launcher would and which is closed when the test ends.
func Pipe(t testing.TB) (int, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close() })
	return fd, w
}

// TempDir is t.TempDir with every symlink resolved: the form records and
// running records key a workdir by (SES-3), so paths the test builds under
// it match the ones mur writes.
func TempDir(t testing.TB) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Dirs makes one test's pair of directories under a fresh TempDir root
// (symlinks resolved): dir, root/<name>, created, and home, root/home, for
// MURMUR_HOME, left for mur to create.
func Dirs(t testing.TB, name string) (dir, home string) {
	t.Helper()
	root := TempDir(t)
	dir, home = filepath.Join(root, name), filepath.Join(root, "home")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, home
}
