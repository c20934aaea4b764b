package testmur

import (
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
