// Package atomicfile replaces a file so that a reader, or the machine after
// a crash, sees the old content or the new, never a part of either.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Write replaces path with data: written to a temporary sibling
// (".<name>.tmp-*", which readers of the directory skip as a dot file),
// fsynced, given mode, renamed over path, and the directory fsynced so the
// rename is durable. The directory must exist. On failure the temporary
// file is removed and path is as it was.
func Write(path string, data []byte, mode fs.FileMode) (retErr error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*") // 0600 until chmod
	if err != nil {
		return err
	}
	defer func() {
		if retErr != nil {
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), mode); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a directory, so a rename in it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err // some file systems cannot sync a directory; that is no failure
	}
	return nil
}
