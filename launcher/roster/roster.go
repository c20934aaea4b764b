// Package roster loads roster.yaml strictly (formations.md §2) and admits a
// roster against the installed capsules (§3, §4): Admit returns the admitted
// formation or exactly one diagnostic. Loading and checks 1–5 read no store;
// checks 6–8 read the stores through a Resolver.
//
// # Example
//
// ExampleLoad loads a roster and a broken one. A command finds and admits:
//
//	path, err := roster.Locate(cwd, "crew") // --roster crew
//	if err != nil { return err }           // E-ROS-001
//	f, warns, err := roster.Admit(path, resolver)
//	// err: one *diag.Diagnostic (E-ROS-*, E-REG-005); warns: W-ROS-001 each
package roster

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
)

// FileName is the one file name a roster has (ROS-1).
const FileName = "roster.yaml"

// Roster is roster.yaml as written, after the shape checks of ADM-1 check 1.
type Roster struct {
	Path    string   // absolute path of roster.yaml
	Dir     string   // the formation's project directory: roster.yaml's directory
	Members []Member // roster order
	// All is true for `reachability: all` (ROS-4); Rules is then empty.
	All   bool
	Rules []Rule
	// Cancel is the roster's cancel option: CancelOff, the
	// default, or CancelCascade.
	Cancel string
	// Strict is the roster's strict: true: a launch with warnings is
	// refused, as with mur run --strict.
	Strict bool
}

// The values of cancel. Under cascade, a calling task that ends without
// having the answers of its member calls delivered has the runtime cancel
// every member task it started that is still live, and each such member
// does likewise (docs/roster.md). Under off a member's task is left
// running, as formations.md §16 says.
const (
	CancelOff     = "off"
	CancelCascade = "cascade"
)

// Member is one members[] entry (ROS-2).
type Member struct {
	Name    string
	Capsule string
	Version string // exact, as written (an unquoted number keeps its source text)
	Entry   bool
}

// Rule is one reachability[] entry: From may call each of To.
type Rule struct {
	From string
	To   []string
}

// Locate resolves a --roster value against cwd (ROS-1): "" means ".", a
// directory means the roster.yaml in it, and a path to a file must name a
// roster.yaml. Any other file name, or no roster.yaml there, is E-ROS-001.
// The returned path is absolute.
func Locate(cwd, arg string) (string, error) {
	if arg == "" {
		arg = "."
	}
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	fi, err := os.Stat(p)
	switch {
	case err == nil && fi.IsDir():
		p = filepath.Join(p, FileName)
		if _, err := os.Stat(p); err != nil {
			return "", rosReadError(p, err)
		}
		return p, nil
	case errors.Is(err, fs.ErrNotExist) && filepath.Base(p) != FileName:
		// Most likely a project directory misspelt or not made yet: say
		// that it is missing, not that it is the wrong kind of file.
		return "", rosReadError(p, err)
	case filepath.Base(p) != FileName:
		return "", diag.RosOtherFile(arg)
	case err != nil:
		return "", rosReadError(p, err)
	}
	return p, nil
}

// Load reads and shape-checks the roster at path (ADM-1 check 1). Every
// failure is one E-ROS-001 diagnostic; nothing is returned with it.
func Load(path string) (*Roster, error) { return LoadContext(context.Background(), path) }

// LoadContext is Load whose read ends once ctx does (a roster.yaml that is
// a FIFO nobody closes), with context.Cause(ctx) as the error.
func LoadContext(ctx context.Context, path string) (*Roster, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, rosReadError(path, err)
	}
	data, err := readBounded(ctx, abs)
	if err != nil {
		return nil, err
	}
	r, err := parse(data)
	if err != nil {
		return nil, err
	}
	r.Path = abs
	r.Dir = filepath.Dir(abs)
	return r, nil
}

// MaxFileBytes is the largest roster.yaml Load reads: a
// larger one is refused before it is parsed.
const MaxFileBytes = 1 << 20

// MaxMembers is the most members a roster may list.
const MaxMembers = 256

// readBounded reads at most MaxFileBytes of path; a longer file is E-ROS-001
// without its bytes being parsed.
func readBounded(ctx context.Context, path string) ([]byte, error) {
	data, err := manifest.ReadBounded(ctx, path, MaxFileBytes)
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, manifest.ErrTooLarge):
		return nil, diag.RosTooLarge(path, MaxFileBytes)
	case ctx.Err() != nil:
		return nil, err
	}
	return nil, rosReadError(path, err)
}

// Entry returns the entry member's index, or -1 before check 3 has passed.
func (r *Roster) Entry() int {
	for i, m := range r.Members {
		if m.Entry {
			return i
		}
	}
	return -1
}

// osReason is the OS's text for err without the path the os package adds.
func osReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func rosReadError(path string, err error) error {
	return diag.RosUnreadable(path, osReason(err)).WithErr(err)
}

// ProjectDir is the formation's project directory for a roster path: the
// directory holding roster.yaml (ROS-1, BIND-4).
func ProjectDir(rosterPath string) string { return filepath.Dir(rosterPath) }
