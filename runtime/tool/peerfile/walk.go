package peerfile

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-go/mur/runtime/peerplane"
)

// fileID is what an open file is known by for the digest cache: the inode
// and every field a write changes (hash.go).
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime time.Time
}

// opened is a file the walk opened: regular, below the root, reached
// through no symbolic link.
type opened struct {
	f  *os.File
	id fileID
}

// refused is why the walk refused a path: the plane's answer and one
// sentence for the record (never a host path).
type refused struct {
	r      *peerplane.Refusal
	reason string
}

// splitRel checks a path relative to the export root without touching the
// filesystem (PFILE-2, PFILE-5): no empty path, no absolute path, no NUL,
// no "", "." or ".." component — nor one that percent-decoding would
// produce. Such a path is refused outside_root, never normalised.
func splitRel(p string) ([]string, *refused) {
	bad := func(why string) *refused {
		return &refused{peerplane.OutsideRoot(), why}
	}
	if p == "" {
		return nil, bad("the path is empty")
	}
	for _, s := range []string{p, unescaped(p)} {
		if strings.HasPrefix(s, "/") {
			return nil, bad("the path is absolute")
		}
		if strings.ContainsRune(s, 0) {
			return nil, bad("the path holds a NUL byte")
		}
		for _, c := range strings.Split(s, "/") {
			if c == "" || c == "." || c == ".." {
				return nil, bad("the path has an empty, '.' or '..' component")
			}
		}
	}
	return strings.Split(p, "/"), nil
}

// unescaped is p percent-decoded, or p when it does not decode.
func unescaped(p string) string {
	if u, err := url.PathUnescape(p); err == nil {
		return u
	}
	return p
}

// rootParts returns the directory the walk starts from and the components
// from it to exports.peer_files.root (relative, inside the workdir: E-CAP-007
// at launch). A root that exists now is taken as it resolves now — through
// any link the operator made inside the workdir — so that from here on any
// link on the way to it, a root swapped for one included, is refused. A
// root that does not exist yet is walked as declared.
func rootParts(workdir, root string) (string, []string) {
	split := func(rel string) []string {
		clean := filepath.ToSlash(filepath.Clean(rel))
		if clean == "." || clean == "" {
			return nil
		}
		return strings.Split(clean, "/")
	}
	realWD, err1 := filepath.EvalSymlinks(workdir)
	realRoot, err2 := filepath.EvalSymlinks(filepath.Join(workdir, root))
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(realWD, realRoot); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return realWD, split(rel)
		}
	}
	return workdir, split(root)
}
