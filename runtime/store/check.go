package store

import (
	"errors"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
)

// Bound is one manifest artifact bound to its installed bytes (MAN-4 step 8).
type Bound struct {
	Artifact manifest.Artifact
	Resolved
}

// CheckArtifacts is MAN-4 step (8) for m's artifacts (capsule.md STORE-3..6):
// the project lock's version (E-RUN-003), an entry per artifact (E-RUN-003),
// every artifact installed (E-RUN-008 naming each missing name@version),
// the bytes matching meta.json (E-REG-002), the manifest's version matching
// the pin (E-REG-005), the bytes matching the pin (E-REG-002). With write
// and no lock, a lock pinning every artifact (origin operator) is created
// once all are bound; entries are never refreshed. Without a project only
// the global store is searched and no lock is read or written. Errors are
// diagnostics. The built-in request-input entry is never looked up (input.md
// INP-1): it has no bytes and no lock entry, and is never bound.
func (s Stores) CheckArtifacts(m *manifest.Manifest, write bool) ([]Bound, error) {
	arts := m.StoreArtifacts()
	if len(arts) == 0 {
		return nil, nil
	}
	var lock *Lock
	if s.ProjectDir != "" {
		var err error
		if lock, err = ReadLock(s.ProjectDir); err != nil {
			return nil, err
		}
	}
	if lock != nil {
		for _, a := range arts {
			if _, ok := lock.Find(a.Name); !ok {
				return nil, diag.RunLockNoEntry(a.Name, a.Version)
			}
		}
	}
	bound := make([]Bound, 0, len(arts))
	var missing []string
	var firstErr error
	for _, a := range arts {
		r, err := s.Resolve(a.Name, a.Version)
		switch {
		case errors.Is(err, ErrNotInstalled):
			missing = append(missing, a.Ref+"@"+a.Version)
		case err != nil && firstErr == nil:
			firstErr = err
		}
		bound = append(bound, Bound{Artifact: a, Resolved: r})
	}
	if len(missing) > 0 {
		return nil, diag.RunMissingArtifacts(missing)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	for _, b := range bound {
		if err := checkPinned(lock, b); err != nil {
			return nil, err
		}
	}
	if lock == nil && write {
		if err := s.CreateLock(bound); err != nil {
			return nil, err
		}
	}
	return bound, nil
}

// CreateLock is STORE-5's creation of murmur.lock by `mur run`: when the
// project has no lock yet, it writes one pinning every bound artifact (origin
// operator); an existing lock is never refreshed, and without a project or
// artifacts nothing is written. `mur run` calls it once MAN-4 has passed,
// so that a refused launch creates nothing.
func (s Stores) CreateLock(bound []Bound) error {
	if s.ProjectDir == "" || len(bound) == 0 {
		return nil
	}
	return EditLock(s.ProjectDir, func(cur *Lock) (*Lock, error) {
		if cur != nil {
			return nil, nil // another writer made it first; it is never refreshed
		}
		lock := &Lock{LockVersion: LockVersion}
		for _, b := range bound {
			lock.Upsert(LockEntry{Name: b.Artifact.Name, ResolvedVersion: b.Artifact.Version,
				Runtime: b.Meta.Runtime, SHA256: b.SHA256, Origin: OriginOperator})
		}
		return lock, nil
	})
}

// CheckArtifact checks one artifact as CheckArtifacts does, for `mur
// doctor`'s per-artifact line (CLI-14); lock is ReadLock's result (nil when
// there is none). It never writes.
func (s Stores) CheckArtifact(lock *Lock, a manifest.Artifact) (Resolved, error) {
	if lock != nil {
		if _, ok := lock.Find(a.Name); !ok {
			return Resolved{}, diag.RunLockNoEntry(a.Name, a.Version)
		}
	}
	r, err := s.Resolve(a.Name, a.Version)
	if errors.Is(err, ErrNotInstalled) {
		return r, diag.RunMissingArtifacts([]string{a.Ref + "@" + a.Version})
	}
	if err != nil {
		return r, err
	}
	return r, checkPinned(lock, Bound{Artifact: a, Resolved: r})
}

// checkPinned compares a bound artifact with its lock entry, if any.
func checkPinned(lock *Lock, b Bound) error {
	e, ok := lock.Find(b.Artifact.Name)
	if !ok {
		return nil
	}
	if e.ResolvedVersion != b.Artifact.Version {
		return diag.RegLockPin(b.Artifact.Name, e.ResolvedVersion, e.SHA256, "the manifest declares", b.Artifact.Version, b.SHA256)
	}
	if e.SHA256 != b.SHA256 {
		return diag.RegHashMismatch(b.Artifact.Name, b.Artifact.Version, string(b.Scope), b.SHA256, "murmur.lock", e.SHA256).WithErr(ErrHashMismatch)
	}
	return nil
}
