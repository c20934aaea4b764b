package testmur

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
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

// fatalTB records the first Fatalf and ends the goroutine that called it,
// as testing.T's does, so a test can check that a helper fails its test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	goruntime.Goexit()
}

// failure runs fn with a fatalTB on a goroutine of its own and returns
// what it failed with ("" when it did not).
func failure(t *testing.T, fn func(testing.TB)) string {
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); fn(f) }()
	<-done
	return f.msg
}

// TestReadFIFO: ReadFIFO returns what a process writes to the fifo, and
// fails the test, rather than wait on, once the process ends having
// written nothing.
func TestReadFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	up := FIFO(t, filepath.Join(dir, "up"))
	writer := exec.Command("sh", "-c", "echo up > "+up)
	if err := StartFake(writer); err != nil {
		t.Fatal(err)
	}
	if b := ReadFIFO(t, up, writer.Process); string(b) != "up\n" {
		t.Errorf("ReadFIFO = %q, want %q", b, "up\n")
	}
	_ = writer.Wait()

	never := FIFO(t, filepath.Join(dir, "never"))
	quitter := exec.Command("true")
	if err := StartFake(quitter); err != nil {
		t.Fatal(err)
	}
	defer quitter.Wait()
	want := fmt.Sprintf("pid %d ended before anything was written to %s", quitter.Process.Pid, never)
	if msg := failure(t, func(tb testing.TB) { ReadFIFO(tb, never, quitter.Process) }); msg != want {
		t.Errorf("ReadFIFO of a fifo nobody writes failed with %q, want %q", msg, want)
	}
}

// TestWriteFIFO: WriteFIFO hands its bytes to a process reading the fifo,
// and fails the test once the process ends without having opened it.
func TestWriteFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := FIFO(t, filepath.Join(dir, "in"))
	var out Buffer
	reader := exec.Command("cat", in)
	reader.Stdout = &out
	if err := StartFake(reader); err != nil {
		t.Fatal(err)
	}
	WriteFIFO(t, in, []byte("go\n"), reader.Process)
	if err := reader.Wait(); err != nil || out.String() != "go\n" {
		t.Errorf("cat read %q (%v), want %q", out.String(), err, "go\n")
	}

	never := FIFO(t, filepath.Join(dir, "never"))
	quitter := exec.Command("true")
	if err := StartFake(quitter); err != nil {
		t.Fatal(err)
	}
	defer quitter.Wait()
	want := fmt.Sprintf("pid %d ended before it opened %s", quitter.Process.Pid, never)
	if msg := failure(t, func(tb testing.TB) { WriteFIFO(tb, never, []byte("go\n"), quitter.Process) }); msg != want {
		t.Errorf("WriteFIFO to a fifo nobody reads failed with %q, want %q", msg, want)
	}
}
