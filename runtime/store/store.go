package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
)

// Scope names a store (STORE-2).
type Scope string

// The two stores, in resolution order (STORE-3).
const (
	ScopeProject Scope = "project"
	ScopeGlobal  Scope = "global"
)

// Sentinels Resolve wraps, so the launcher (formations.md BIND-1, E-ROS-007)
// and `mur run` (E-RUN-008, E-REG-002) tell the cases apart with errors.Is.
var (
	// ErrNotInstalled: neither store holds name@version.
	ErrNotInstalled = errors.New("artifact not installed")
	// ErrHashMismatch: the installed bytes hash differently from meta.json
	// (or murmur.lock); the error is E-REG-002.
	ErrHashMismatch = errors.New("installed artifact hash mismatch")
	// ErrManifestUnreadable: the installed meta.json or tree/murmur.yaml
	// could not be read or parsed; the error is E-IO-001.
	ErrManifestUnreadable = errors.New("installed artifact unreadable")
)

// Meta is an installed artifact's meta.json (STORE-2).
type Meta struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Runtime     string `json:"runtime"` // capsule | tool | skill
	SHA256      string `json:"sha256"`  // 64 lower-case hex digits
	InstalledAt string `json:"installed_at"`
	SourcePath  string `json:"source_path"`
}

// Stores locates the project store (when there is a project) and the global
// store. The zero ProjectDir means "no project".
type Stores struct {
	ProjectDir string // <project> (STORE-2), "" when none
	Home       string // $MURMUR_HOME (Home)
}

// Root is the artifacts directory of scope: <project>/.murmur/artifacts or
// $MURMUR_HOME/artifacts; "" for the project scope without a project.
func (s Stores) Root(scope Scope) string {
	if scope == ScopeProject {
		if s.ProjectDir == "" {
			return ""
		}
		return filepath.Join(s.ProjectDir, ".murmur", "artifacts")
	}
	return filepath.Join(s.Home, "artifacts")
}

// scopes lists the stores to search, in STORE-3 order.
func (s Stores) scopes() []Scope {
	if s.ProjectDir == "" {
		return []Scope{ScopeGlobal}
	}
	return []Scope{ScopeProject, ScopeGlobal}
}

// FindProject is STORE-2's <project> for a command run in cwd: the nearest
// directory at or above cwd holding murmur.yaml or roster.yaml.
func FindProject(cwd string) (string, bool) {
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return "", false
	}
	for {
		for _, name := range []string{manifest.FileName, RosterFile} {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
				return dir, true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Resolved is an installed artifact found by Resolve (STORE-7).
type Resolved struct {
	Scope   Scope
	Dir     string // <store>/<name>/<version>
	TreeDir string // Dir/tree, the copied artifact
	SHA256  string // recomputed now; equal to Meta.SHA256
	Meta    Meta
	// Repinned is the murmur.lock pin an Install with force replaced; nil
	// when the lock agreed, had no pin, or was not read.
	Repinned *LockEntry
	// Replaced is the meta.json of the global store's entry a forced
	// install replaced with other bytes; BrokenPins the murmur.lock files
	// that pinned those bytes (Install with force, scope global).
	Replaced   *Meta
	BrokenPins []string
}

// Resolve finds name@version (exact version; a bare name, MAN-6) in the
// project store, then the global store (STORE-3), recomputing the tree's
// hash every time (STORE-4). Errors: ErrNotInstalled (wrapped, not a
// diagnostic: callers list what is missing), E-REG-002 wrapping
// ErrHashMismatch when the bytes differ from meta.json (the other store is
// not consulted then), E-IO-001 wrapping ErrManifestUnreadable for an
// unreadable meta.json or tree/murmur.yaml, and also ErrOutsideStore for a
// directory that symlinks lead out of its store; ErrBadRef for a name or
// version that is not one (never a path). Safe for concurrent use.
func (s Stores) Resolve(name, version string) (Resolved, error) {
	for _, sc := range s.scopes() {
		dir, err := s.artifactDir(sc, name, version)
		if err != nil {
			return Resolved{}, err
		}
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return s.resolveIn(sc, dir, name, version)
	}
	return Resolved{}, fmt.Errorf("%s@%s: %w", name, version, ErrNotInstalled)
}

// resolveIn reads and verifies the artifact in dir, which artifactDir made
// and which exists; it must lie inside sc's store (confine).
func (s Stores) resolveIn(sc Scope, dir, name, version string) (Resolved, error) {
	r := Resolved{Scope: sc, Dir: dir, TreeDir: filepath.Join(dir, "tree")}
	if err := s.confine(sc, dir); err != nil {
		return r, err
	}
	meta, err := readMeta(filepath.Join(dir, "meta.json"))
	if err != nil {
		return r, err
	}
	r.Meta = meta
	if _, err := os.Stat(filepath.Join(r.TreeDir, manifest.FileName)); err != nil {
		return r, unreadable(filepath.Join(r.TreeDir, manifest.FileName), err)
	}
	sum, err := Hash(r.TreeDir)
	if err != nil {
		return r, err
	}
	r.SHA256 = sum
	if sum != meta.SHA256 {
		return r, diag.RegHashMismatch(name, version, string(sc), sum, "meta.json", meta.SHA256).WithErr(ErrHashMismatch)
	}
	return r, nil
}

func unreadable(path string, err error) error {
	var pe *fs.PathError
	text := err.Error()
	if errors.As(err, &pe) {
		text = pe.Err.Error()
	}
	if errors.Is(err, fs.ErrNotExist) {
		return diag.IONotFound(path).WithErr(fmt.Errorf("%w: %w", ErrManifestUnreadable, err))
	}
	return diag.IOError(path, text).WithErr(fmt.Errorf("%w: %w", ErrManifestUnreadable, err))
}

func readMeta(path string) (Meta, error) {
	var m Meta
	data, err := os.ReadFile(path)
	if err != nil {
		return m, unreadable(path, err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, unreadable(path, fmt.Errorf("malformed JSON: %w", err))
	}
	if !isHex64(m.SHA256) || m.Name == "" || m.Version == "" {
		return m, unreadable(path, errors.New("meta.json lacks name, version or a sha256"))
	}
	return m, nil
}

// ReadArtifact loads an installed artifact's own murmur.yaml from its tree
// (manifest.LoadArtifact) for staging (STORE-8): a tool's Description,
// CommandPath() (inside the tree; native executables run in place) and
// InputSchema (JSON); a skill's body is SkillPath. Failures wrap
// ErrManifestUnreadable.
func ReadArtifact(treeDir string) (*manifest.Manifest, error) {
	m, _, err := manifest.LoadArtifact(treeDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrManifestUnreadable, err)
	}
	return m, nil
}

// SkillPath is a skill artifact's skill.md inside its tree.
func SkillPath(treeDir string) string { return filepath.Join(treeDir, manifest.SkillFile) }

// randSuffix names temporary siblings.
func randSuffix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
