//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// flock takes an exclusive flock(2) on the directory dir, waiting for any
// other holder (another process, or another open here), and returns the
// function that releases it. The lock is advisory: it serialises mur's own
// read-modify-writes of murmur.lock and of a store's directories.
// It goes when the process does, so a killed holder never leaves it taken.
func flock(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() { f.Close() }, nil // closing the descriptor releases the lock
}
