//go:build linux || darwin

package peerfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// store streams body into peer-in/<name> below workdir (PFILE-4): peer-in
// is made (0700) or opened without following a link, the bytes go to a
// temporary file created there with O_EXCL|O_NOFOLLOW, and only when their
// digest is want does the file take its name (renameat), replacing an
// earlier fetch of the same handle. Nothing is left on any failure.
func store(workdir, name string, body io.Reader, size, max int64, want string) (int64, string, error) {
	wd, err := unix.Open(workdir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, "", fmt.Errorf("open the workdir: %w", err)
	}
	defer func() { _ = unix.Close(wd) }()
	if err := unix.Mkdirat(wd, InboxDir, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
		return 0, "", fmt.Errorf("make %s: %w", InboxDir, err)
	}
	dir, err := unix.Openat(wd, InboxDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return 0, "", fmt.Errorf("%s is not a directory of the workdir", InboxDir)
		}
		return 0, "", fmt.Errorf("open %s: %w", InboxDir, err)
	}
	defer func() { _ = unix.Close(dir) }()
	var r [8]byte
	_, _ = rand.Read(r[:])
	tmp := ".fetch-" + hex.EncodeToString(r[:])
	fd, err := unix.Openat(dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return 0, "", fmt.Errorf("create a file in %s: %w", InboxDir, err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	keep := false
	defer func() {
		f.Close()
		if !keep {
			_ = unix.Unlinkat(dir, tmp, 0)
		}
	}()
	n, sum, err := receive(f, body, size, max)
	switch {
	case err != nil:
		return n, sum, fmt.Errorf("receive: %w", err)
	case sum != want:
		return n, sum, errMismatch
	}
	if err := f.Sync(); err != nil {
		return n, sum, fmt.Errorf("sync: %w", err)
	}
	if err := unix.Renameat(dir, tmp, dir, name); err != nil {
		return n, sum, fmt.Errorf("name the file: %w", err)
	}
	keep = true
	return n, sum, nil
}
