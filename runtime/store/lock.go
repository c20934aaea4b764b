package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/atomicfile"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
)

// LockFile is the lock's file name in <project> (STORE-5).
const LockFile = "murmur.lock"

// RosterFile is the formation file a project directory may hold (the
// launcher's roster.yaml).
const RosterFile = "roster.yaml"

// LockVersion is the only lock_version this build reads and writes.
const LockVersion = 2

// Origins of a lock entry (STORE-5).
const (
	OriginOperator = "operator" // mur install, mur run
	OriginRuntime  = "runtime"  // pull-artifact
)

// Lock is murmur.lock (STORE-5).
type Lock struct {
	LockVersion int         `yaml:"lock_version"`
	Artifacts   []LockEntry `yaml:"artifacts"`
}

// LockEntry pins one artifact by bare name.
type LockEntry struct {
	Name            string `yaml:"name"`
	ResolvedVersion string `yaml:"resolved_version"`
	Runtime         string `yaml:"runtime"`
	SHA256          string `yaml:"sha256"` // 64 lower-case hex digits
	Origin          string `yaml:"origin"` // operator | runtime
}

// Find returns the entry pinning name.
func (l *Lock) Find(name string) (LockEntry, bool) {
	if l == nil {
		return LockEntry{}, false
	}
	for _, e := range l.Artifacts {
		if e.Name == name {
			return e, true
		}
	}
	return LockEntry{}, false
}

// Upsert replaces the entry for e.Name, or appends e.
func (l *Lock) Upsert(e LockEntry) {
	for i := range l.Artifacts {
		if l.Artifacts[i].Name == e.Name {
			l.Artifacts[i] = e
			return
		}
	}
	l.Artifacts = append(l.Artifacts, e)
}

// Remove drops the entry for name, reporting whether there was one.
func (l *Lock) Remove(name string) bool {
	for i, e := range l.Artifacts {
		if e.Name == name {
			l.Artifacts = append(l.Artifacts[:i], l.Artifacts[i+1:]...)
			return true
		}
	}
	return false
}

// rawLock reads lock_version as text, so any value can be named in E-RUN-003.
type rawLock struct {
	LockVersion yaml.Node   `yaml:"lock_version"`
	Artifacts   []LockEntry `yaml:"artifacts"`
}

// ReadLock reads <project>/murmur.lock. It returns (nil, nil) when there is
// none; E-RUN-003 for a lock_version other than 2; E-MAN-002 for YAML it
// cannot read; E-IO-001 for an unreadable file.
func ReadLock(projectDir string) (*Lock, error) {
	path := filepath.Join(projectDir, LockFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var pe *fs.PathError
		text := err.Error()
		if errors.As(err, &pe) {
			text = pe.Err.Error()
		}
		return nil, diag.IOError(path, text).WithErr(err)
	}
	var raw rawLock
	if err := manifest.DecodeYAML(path, data, &raw); err != nil {
		return nil, err
	}
	if v := raw.LockVersion.Value; v != "2" {
		if v == "" {
			v = "(none)"
		}
		return nil, diag.RunLockVersion(v)
	}
	return &Lock{LockVersion: LockVersion, Artifacts: raw.Artifacts}, nil
}

// WriteLock writes <project>/murmur.lock atomically (temp file, fsync,
// rename, fsync of <project>), mode 0644, lock_version 2. A caller that read
// the lock first must hold it (EditLock), or a concurrent writer's entries
// are lost.
func WriteLock(projectDir string, l *Lock) error {
	out := Lock{LockVersion: LockVersion, Artifacts: l.Artifacts}
	if out.Artifacts == nil {
		out.Artifacts = []LockEntry{}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&out); err != nil {
		return fmt.Errorf("encode %s: %w", LockFile, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode %s: %w", LockFile, err)
	}
	return atomicfile.Write(filepath.Join(projectDir, LockFile), buf.Bytes(), 0o644)
}

// EditLock is one read-modify-write of <project>/murmur.lock, serialised
// across processes by an exclusive flock on <project> (two mur
// installs at once lost pins). edit gets the lock as ReadLock returns it (nil
// when there is none) and returns the lock to write, or nil to write nothing;
// its error is returned as is and nothing is written. ReadLock's errors are
// returned without calling edit. Every writer of murmur.lock goes through it;
// readers need no lock, since the file is only ever replaced whole.
func EditLock(projectDir string, edit func(cur *Lock) (*Lock, error)) error {
	unlock, err := flock(projectDir)
	if err != nil {
		return err
	}
	defer unlock()
	return editLocked(projectDir, edit)
}

// editLocked is EditLock for a caller already holding <project>'s flock.
func editLocked(projectDir string, edit func(cur *Lock) (*Lock, error)) error {
	cur, err := ReadLock(projectDir)
	if err != nil {
		return err
	}
	next, err := edit(cur)
	if err != nil || next == nil {
		return err
	}
	return WriteLock(projectDir, next)
}
