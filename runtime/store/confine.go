package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
)

// Sentinels of a lookup that would leave its store (a version such
// as "../../tmp/x" once ran whatever capsule tree it named).
var (
	// ErrBadRef: the name or version is not one (manifest.NameProblem,
	// manifest.VersionProblem), so it would name another directory.
	ErrBadRef = errors.New("not an artifact name and version")
	// ErrOutsideStore: the artifact's directory, symlinks resolved, lies
	// outside its store; the error is E-IO-001.
	ErrOutsideStore = errors.New("resolves outside its store")
)

// artifactDir is <store>/<name>/<version> in scope sc (STORE-2). Every
// lookup and install goes through it: a name or version that is not one
// wraps ErrBadRef, whoever passed it. Callers validate where they read the
// values; this is the store's own guard.
func (s Stores) artifactDir(sc Scope, name, version string) (string, error) {
	if p := manifest.NameProblem(name); p != "" {
		return "", fmt.Errorf("%s@%s: the name %s: %w", name, version, p, ErrBadRef)
	}
	if p := manifest.VersionProblem(version); p != "" {
		return "", fmt.Errorf("%s@%s: the version %s: %w", name, version, p, ErrBadRef)
	}
	root := s.Root(sc)
	if root == "" {
		return "", fmt.Errorf("%s@%s: no %s store here: %w", name, version, sc, ErrNotInstalled)
	}
	return filepath.Join(root, name, version), nil
}

// confine checks that dir and dir/tree, symlinks resolved, lie strictly
// inside scope sc's store, symlinks resolved too (a store root may itself be
// a link). A link that leads out is E-IO-001 wrapping ErrOutsideStore.
func (s Stores) confine(sc Scope, dir string) error {
	root, err := filepath.EvalSymlinks(s.Root(sc))
	if err != nil {
		return unreadable(s.Root(sc), err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "tree")} {
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, os.ErrNotExist) && p != dir {
			continue // resolveIn names the missing tree
		}
		if err != nil {
			return unreadable(p, err)
		}
		if !within(root, real) {
			return diag.IOError(p, fmt.Sprintf("it resolves to %s, outside the %s store %s", real, sc, root)).
				WithErr(fmt.Errorf("%w: %w", ErrOutsideStore, ErrManifestUnreadable))
		}
	}
	return nil
}

// within reports whether path lies strictly below dir (both clean, absolute).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
