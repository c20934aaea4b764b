package testmur

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
)

// FIFO makes the named pipe path, on which a test and a process it started
// meet with no timed wait, and gives every fixture blocked on it a way out
// when the test ends: the cleanup opens it for reading and for writing
// without blocking and closes both, so a command still waiting to read it
// (`cat path`) reads its end and one still waiting to write it
// (`echo up > path`) goes on. The cleanup runs after those registered later
// (a process's kill and reaping), releasing whatever they left waiting.
func FIFO(t testing.TB, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(path) })
	return path
}

// release lets go of every process blocked opening path. The read end is
// opened first, so that opening the write end finds a reader and does not
// fail with ENXIO.
func release(path string) {
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return // removed with the test's directory, or never made
	}
	if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	r.Close()
}

// ReadFIFO reads the fifo path to its end, as a process started by the
// test writes it, and returns what was written. A test blocked on a fifo has
// a way out: once p (the test's mur, or whatever would write path) has
// exited, ReadFIFO takes what was written by then, and fails the test if
// nothing was. A writer that outlives p is a defect of its own, which this
// read does not hide: it still waits for it.
func ReadFIFO(t testing.TB, path string, p *os.Process) []byte {
	t.Helper()
	type read struct {
		b   []byte
		err error
	}
	opened := make(chan struct{})
	got := make(chan read, 1) // buffered: the reader never blocks on it
	go func() {
		f, err := os.Open(path)
		close(opened)
		if err != nil {
			got <- read{err: err}
			return
		}
		b, err := io.ReadAll(f)
		f.Close()
		got <- read{b, err}
	}()
	exited, stop := ended(p)
	defer stop()
	var r read
	select {
	case r = <-got:
	case <-exited:
		unblock(path, opened)
		if r = <-got; r.err == nil && len(r.b) == 0 {
			t.Fatalf("pid %d ended before anything was written to %s", p.Pid, path)
		}
	}
	if r.err != nil {
		t.Fatalf("read %s: %v", path, r.err)
	}
	return r.b
}

// WriteFIFO writes data to the fifo path, as a process started by the test
// reads it. Once p has exited with no reader having opened path, or with the
// write failed, it fails the test rather than wait for a reader that will
// not come.
func WriteFIFO(t testing.TB, path string, data []byte, p *os.Process) {
	t.Helper()
	opened := make(chan struct{})
	wrote := make(chan error, 1) // buffered: the writer never blocks on it
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		close(opened)
		if err != nil {
			wrote <- err
			return
		}
		_, err = f.Write(data)
		wrote <- errors.Join(err, f.Close())
	}()
	exited, stop := ended(p)
	defer stop()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatalf("write %s: %v", path, err)
		}
	case <-exited:
		select {
		case <-opened:
			// A reader had opened path before p's end was seen: p read what
			// was written, or the write fails with no reader left.
			err := <-wrote
			if err == nil {
				return
			}
			t.Fatalf("pid %d ended before it read %s: %v", p.Pid, path, err)
		default:
			unblock(path, opened)
			<-wrote
			t.Fatalf("pid %d ended before it opened %s", p.Pid, path)
		}
	}
}

// unblock lets this test's own reader or writer of path, perhaps blocked
// opening it, go on: it holds path open for reading and writing (which on
// Linux never blocks) until that open has returned, then lets go, so the
// reader reads its end (no writer is left) and the writer's write fails (no
// reader is left).
func unblock(path string, opened <-chan struct{}) {
	h, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		<-opened // path is gone: the open failed, or returned already
		return
	}
	<-opened
	h.Close()
}
