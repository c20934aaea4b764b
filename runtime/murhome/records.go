package murhome

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// Home returns $MURMUR_HOME, defaulting to ~/.murmur (spec README glossary).
// getenv is os.Getenv or a test's stand-in. The result is absolute.
func Home(getenv func(string) string) (string, error) {
	if h := getenv("MURMUR_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("find the home directory for ~/.murmur: %w", err)
		}
	}
	return filepath.Join(home, ".murmur"), nil
}

// Workdir returns the accessible workdir in its records form: absolute, with
// every symlink resolved. The directory must exist.
func Workdir(workdir string) (string, error) {
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// GroupDir returns the records group of a workdir:
// $MURMUR_HOME/records/<workdir, absolute, symlinks resolved, without its
// leading "/">. The workdir must exist.
func GroupDir(home, workdir string) (string, error) {
	wd, err := Workdir(workdir)
	if err != nil {
		return "", fmt.Errorf("resolve workdir %s: %w", workdir, err)
	}
	return filepath.Join(RecordsDir(home), strings.TrimPrefix(wd, string(filepath.Separator))), nil
}

// SessionDir returns session ses's records directory (SES-3). It creates nothing:
// the session makes the directory (0700) once MAN-4 has succeeded.
func SessionDir(home, workdir, ses string) (string, error) {
	g, err := GroupDir(home, workdir)
	if err != nil {
		return "", err
	}
	return filepath.Join(g, ses), nil
}

// RuntimeDir returns session ses's runtime directory, <workdir>/.murmur/<ses>
// (SES-3), with the workdir in its records form.
func RuntimeDir(workdir, ses string) (string, error) {
	wd, err := Workdir(workdir)
	if err != nil {
		return "", fmt.Errorf("resolve workdir %s: %w", workdir, err)
	}
	return filepath.Join(wd, ".murmur", ses), nil
}

// TraceFile is the name of a session's trace inside its records directory.
const TraceFile = "trace.jsonl"

// Sessions lists the records group's sessions (directories named by a valid
// ses_ id), newest first: UUIDv7 ids sort in creation order. A missing group
// is an empty list.
func Sessions(group string) ([]string, error) {
	ents, err := os.ReadDir(group)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && a2a.ValidID(e.Name(), a2a.PrefixSession) {
			out = append(out, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out, nil
}
