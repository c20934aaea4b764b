package store

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
)

// skipped reports whether a directory entry is neither copied nor hashed
// (STORE-4): .git/, .murmur/ and .env, at any depth, and murmur.lock
// at the root: a capsule directory that is also its own project holds the
// lock that installing it writes, which must not change what it hashes to.
func skipped(name string, root bool) bool {
	return name == ".git" || name == ".murmur" || name == ".env" || root && name == "murmur.lock"
}

// Copied reports whether the file at rel, a slash-separated path relative
// to an artifact's directory, is copied into the store when it is
// installed (STORE-4): no component of it is skipped.
func Copied(rel string) bool {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		if skipped(p, i == 0) || p == ".." {
			return false
		}
	}
	return true
}

// entry is one canonical-tar entry.
type entry struct {
	rel  string // slash-separated, relative to the root
	dir  bool
	exec bool
	size int64
}

// walk lists dir's entries in STORE-4 order (byte order of slash paths),
// refusing a symlink with E-BLD-002 (path as reached from dir) and any other
// non-regular file with a plain error.
func walk(dir string) ([]entry, error) {
	var out []entry
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == dir {
			return nil
		}
		if skipped(d.Name(), filepath.Dir(path) == dir) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			return diag.BldSymlink(path)
		case d.IsDir():
			out = append(out, entry{rel: rel, dir: true})
		case t.IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			out = append(out, entry{rel: rel, exec: fi.Mode().Perm()&0o111 != 0, size: fi.Size()})
		default:
			return fmt.Errorf("%s is neither a regular file nor a directory; an artifact holds only those", path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, nil
}

// Hash is the sha256 (lower-case hex) of dir's canonical tar (STORE-4):
// entries in byte order of their slash-separated relative paths, directories
// (named with a trailing '/') and regular files only, mode 0755 (a directory,
// or a file with any exec bit) or 0644, uid/gid 0, empty owner names, mtime
// 0, USTAR; .git/, .murmur/ and .env left out. A symlink refuses with
// E-BLD-002.
func Hash(dir string) (string, error) {
	entries, err := walk(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if err := writeTar(h, dir, entries); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func writeTar(w io.Writer, dir string, entries []entry) error {
	tw := tar.NewWriter(w)
	for _, e := range entries {
		hdr := &tar.Header{
			Name:    e.rel,
			Mode:    0o644,
			ModTime: time.Unix(0, 0),
			Format:  tar.FormatUSTAR,
		}
		switch {
		case e.dir:
			hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, e.rel+"/", 0o755
		default:
			hdr.Typeflag, hdr.Size = tar.TypeReg, e.size
			if e.exec {
				hdr.Mode = 0o755
			}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("hash %s: %w", filepath.Join(dir, e.rel), err)
		}
		if e.dir {
			continue
		}
		if err := copyFileTo(tw, filepath.Join(dir, filepath.FromSlash(e.rel)), e.size); err != nil {
			return err
		}
	}
	return tw.Close()
}

func copyFileTo(w io.Writer, path string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(w, io.LimitReader(f, size))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if n != size {
		return fmt.Errorf("read %s: the file changed while it was read", path)
	}
	return nil
}

// copyTree copies src's entries (STORE-4's selection) into dst, which must
// not exist: directories 0700, files 0755 or 0644.
func copyTree(src, dst string) error {
	entries, err := walk(src)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o700); err != nil {
		return err
	}
	for _, e := range entries {
		to := filepath.Join(dst, filepath.FromSlash(e.rel))
		if e.dir {
			if err := os.Mkdir(to, 0o700); err != nil {
				return err
			}
			continue
		}
		mode := os.FileMode(0o644)
		if e.exec {
			mode = 0o755
		}
		if err := copyFile(filepath.Join(src, filepath.FromSlash(e.rel)), to, mode, e.size); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string, mode os.FileMode, size int64) error {
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if err := copyFileTo(out, from, size); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(to, mode) // the umask may have narrowed it
}

// isHex64 reports whether s is 64 lower-case hex digits.
func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// SourceChanged reports whether the directory an artifact was installed
// from (meta.json's source_path) now hashes to other bytes than installed,
// the sha256 the store holds; now is its hash then. A source that is gone,
// holds no murmur.yaml or cannot be hashed is not reported: it is no
// longer the artifact's source.
func SourceChanged(source, installed string) (now string, changed bool) {
	if source == "" {
		return "", false
	}
	if fi, err := os.Stat(filepath.Join(source, manifest.FileName)); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	sum, err := Hash(source)
	if err != nil || sum == installed {
		return sum, false
	}
	return sum, true
}
