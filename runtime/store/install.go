package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/murmur-go/mur/runtime/atomicfile"
	"github.com/murmur-go/mur/runtime/diag"
)

// ArtifactID names an artifact to install: bare name, exact version, and
// its runtime (capsule, tool or skill), from its own manifest.
type ArtifactID struct {
	Name    string
	Version string
	Runtime string
}

// Install copies srcDir into scope's store as a.Name@a.Version (capsule.md
// CLI-6): STORE-4's selection is copied and hashed, meta.json written, and
// for the project store murmur.lock upserted (origin operator). An existing
// install of the same name@version is replaced, except that the global
// store refuses other bytes under a stored name@version (E-REG-006;
// InstallForce replaces them). Refusals create nothing: E-BLD-002 for a
// symlink, E-REG-005 when the lock pins a.Name at another version or hash
// (InstallForce replaces that pin). The manifest in srcDir
// must already be validated (manifest.LoadArtifact).
func (s Stores) Install(srcDir string, a ArtifactID, scope Scope) (Resolved, error) {
	return s.install(srcDir, a, scope, false)
}

// InstallForce is Install that, where murmur.lock pins a.Name at another
// version or hash, replaces the pin with this install rather than refuse;
// the result's Repinned holds the pin it replaced (`mur install --force`,
// the edit-run loop: a changed capsule re-pinned at the same version).
func (s Stores) InstallForce(srcDir string, a ArtifactID, scope Scope) (Resolved, error) {
	return s.install(srcDir, a, scope, true)
}

func (s Stores) install(srcDir string, a ArtifactID, scope Scope, force bool) (Resolved, error) {
	sum, err := Hash(srcDir)
	if err != nil {
		return Resolved{}, err
	}
	abs, err := filepath.Abs(srcDir)
	if err != nil {
		return Resolved{}, err
	}
	if scope != ScopeProject {
		return s.placeGlobal(abs, srcDir, a, sum, force)
	}
	// The pin check, the copy and the pin are one step for every other mur
	// writing this project's lock.
	unlock, err := flock(s.ProjectDir)
	if err != nil {
		return Resolved{}, err
	}
	defer unlock()
	old, err := s.otherPin(a.Name, a.Version, sum)
	switch {
	case err != nil:
		return Resolved{}, err
	case old != nil && !force:
		return Resolved{}, diag.RegLockPinInstall(a.Name, old.ResolvedVersion, old.SHA256, a.Version, sum, srcDir)
	}
	r, err := s.place(scope, abs, a, sum, abs)
	if err != nil {
		return Resolved{}, err
	}
	r.Repinned = old
	return r, s.pin(a, sum)
}

// placeGlobal is place into the global store (srcDir is srcTree as the
// user named it), which never swaps the bytes
// of a stored name@version silently: other bytes are refused with
// E-REG-006 unless force, and a forced replacement reports what it
// replaced and the murmur.lock pins it broke.
func (s Stores) placeGlobal(srcTree, srcDir string, a ArtifactID, sum string, force bool) (Resolved, error) {
	var old *Meta
	r, err := s.placeChecked(ScopeGlobal, srcTree, a, sum, srcTree, func(stored *Meta) error {
		if stored == nil || stored.SHA256 == sum {
			return nil
		}
		if !force {
			return diag.RegStoreHolds(a.Name, a.Version, stored.SHA256, stored.SourcePath, sum, srcDir)
		}
		old = stored
		return nil
	})
	if err != nil || old == nil {
		return r, err
	}
	r.Replaced = old
	r.BrokenPins = s.brokenPins(a, old)
	return r, nil
}

// brokenPins lists the murmur.lock files that pin a at old's bytes and now
// resolve it from the global store (their project store holds no copy): the
// project here and the project old was installed from. Each such pin now
// fails verification (E-REG-002).
func (s Stores) brokenPins(a ArtifactID, old *Meta) []string {
	var dirs []string
	if s.ProjectDir != "" {
		dirs = append(dirs, s.ProjectDir)
	}
	if p, ok := FindProject(old.SourcePath); ok && old.SourcePath != "" && (len(dirs) == 0 || dirs[0] != p) {
		dirs = append(dirs, p)
	}
	var out []string
	for _, d := range dirs {
		lock, err := ReadLock(d)
		if err != nil || lock == nil {
			continue
		}
		e, ok := lock.Find(a.Name)
		if !ok || e.ResolvedVersion != a.Version || e.SHA256 != old.SHA256 {
			continue
		}
		proj := Stores{ProjectDir: d, Home: s.Home}
		if pdir, err := proj.artifactDir(ScopeProject, a.Name, a.Version); err == nil && exists(pdir) {
			continue // served by that project's own copy
		}
		out = append(out, filepath.Join(d, LockFile))
	}
	return out
}

// InstallFromGlobal installs the given artifacts into the project store and
// pins them (capsule.md CLI-6: `mur install`, `mur install <name>@<version>`).
// One already held by the project store (hash verified) is only pinned;
// otherwise it is copied from the global store. Refusals copy nothing:
// E-REG-001 naming every artifact neither store holds, E-REG-002, E-IO-001,
// E-REG-005. The results follow refs' order; Runtime is each meta.json's.
// The whole install holds the project's flock (EditLock).
func (s Stores) InstallFromGlobal(refs []ArtifactID) ([]Resolved, error) {
	if s.ProjectDir == "" {
		return nil, errors.New("install from the global store: no project here")
	}
	unlock, err := flock(s.ProjectDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	type plan struct {
		id  ArtifactID
		src Resolved
	}
	var plans []plan
	var missing []string
	for _, ref := range refs {
		src, ok, err := s.source(ref)
		if err != nil {
			return nil, err
		}
		if !ok {
			missing = append(missing, ref.Name+"@"+ref.Version)
			continue
		}
		plans = append(plans, plan{id: ArtifactID{Name: ref.Name, Version: ref.Version, Runtime: src.Meta.Runtime}, src: src})
	}
	if len(missing) > 0 {
		return nil, diag.RegNotInGlobal(missing)
	}
	for _, p := range plans {
		if err := s.checkPin(p.id.Name, p.id.Version, p.src.SHA256); err != nil {
			return nil, err
		}
	}
	out := make([]Resolved, 0, len(plans))
	for _, p := range plans {
		r := p.src
		if p.src.Scope == ScopeGlobal {
			var err error
			if r, err = s.place(ScopeProject, p.src.TreeDir, p.id, p.src.SHA256, p.src.TreeDir); err != nil {
				return out, err
			}
		}
		if err := s.pin(p.id, r.SHA256); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// source finds what `mur install` installs ref from: the project store's
// copy when it verifies, else the global store's. ok is false when neither
// store holds ref.
func (s Stores) source(ref ArtifactID) (Resolved, bool, error) {
	pdir, err := s.artifactDir(ScopeProject, ref.Name, ref.Version)
	if err != nil {
		return Resolved{}, false, err
	}
	var projErr error
	if exists(pdir) {
		r, err := s.resolveIn(ScopeProject, pdir, ref.Name, ref.Version)
		if err == nil {
			return r, true, nil
		}
		projErr = err // a damaged project copy is replaced from the global store
	}
	gdir, err := s.artifactDir(ScopeGlobal, ref.Name, ref.Version)
	if err != nil {
		return Resolved{}, false, err
	}
	if !exists(gdir) {
		return Resolved{}, projErr != nil, projErr
	}
	r, err := s.resolveIn(ScopeGlobal, gdir, ref.Name, ref.Version)
	return r, err == nil, err
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// otherPin reads the project lock and returns its entry for name when it
// pins another version or hash, else nil. The caller holds the project's
// flock.
func (s Stores) otherPin(name, version, sum string) (*LockEntry, error) {
	lock, err := ReadLock(s.ProjectDir)
	if err != nil {
		return nil, err
	}
	if e, ok := lock.Find(name); ok && (e.ResolvedVersion != version || e.SHA256 != sum) {
		return &e, nil
	}
	return nil, nil
}

// checkPin is otherPin as E-REG-005 (InstallFromGlobal).
func (s Stores) checkPin(name, version, sum string) error {
	e, err := s.otherPin(name, version, sum)
	if err != nil || e == nil {
		return err
	}
	return diag.RegLockPin(name, e.ResolvedVersion, e.SHA256, "this install is", version, sum)
}

// pin upserts the project lock's entry for a (STORE-5: mur install upserts),
// writing only when it changes. The caller holds the project's flock.
func (s Stores) pin(a ArtifactID, sum string) error {
	want := LockEntry{Name: a.Name, ResolvedVersion: a.Version, Runtime: a.Runtime, SHA256: sum, Origin: OriginOperator}
	return editLocked(s.ProjectDir, func(lock *Lock) (*Lock, error) {
		if e, ok := lock.Find(a.Name); ok && e == want {
			return nil, nil
		}
		if lock == nil {
			lock = &Lock{LockVersion: LockVersion}
		}
		lock.Upsert(want)
		return lock, nil
	})
}

// place copies srcTree into <store>/<name>/<version>/tree with meta.json,
// via a temporary sibling and rename; the copy must hash to sum.
func (s Stores) place(scope Scope, srcTree string, a ArtifactID, sum, sourcePath string) (Resolved, error) {
	return s.placeChecked(scope, srcTree, a, sum, sourcePath, nil)
}

// placeChecked is place that, holding the store's flock, first passes check
// the meta.json of the entry it would replace (nil when there is none or it
// is unreadable); an error from check refuses the install.
func (s Stores) placeChecked(scope Scope, srcTree string, a ArtifactID, sum, sourcePath string, check func(stored *Meta) error) (Resolved, error) {
	final, err := s.artifactDir(scope, a.Name, a.Version)
	if err != nil {
		return Resolved{}, err
	}
	root := s.Root(scope)
	if scope == ScopeProject {
		if err := os.MkdirAll(filepath.Join(s.ProjectDir, ".murmur"), 0o700); err != nil {
			return Resolved{}, err
		}
	}
	nameDir := filepath.Join(root, a.Name)
	for _, d := range []string{root, nameDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return Resolved{}, err
		}
	}
	// One writer at a time replaces a store's entries (two installs
	// of one name@version raced on the rename).
	unlock, err := flock(root)
	if err != nil {
		return Resolved{}, err
	}
	defer unlock()
	if check != nil {
		var stored *Meta
		if m, err := readMeta(filepath.Join(final, "meta.json")); err == nil {
			stored = &m
		}
		if err := check(stored); err != nil {
			return Resolved{}, err
		}
	}
	tmp := filepath.Join(nameDir, ".tmp-"+randSuffix())
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return Resolved{}, err
	}
	defer os.RemoveAll(tmp) // gone after the rename; cleans up on failure
	tree := filepath.Join(tmp, "tree")
	if err := copyTree(srcTree, tree); err != nil {
		return Resolved{}, fmt.Errorf("copy %s into the %s store: %w", srcTree, scope, err)
	}
	got, err := Hash(tree)
	if err != nil {
		return Resolved{}, err
	}
	if got != sum {
		return Resolved{}, fmt.Errorf("copy %s into the %s store: the source changed while it was copied", srcTree, scope)
	}
	meta := Meta{Name: a.Name, Version: a.Version, Runtime: a.Runtime, SHA256: sum,
		InstalledAt: time.Now().UTC().Format(time.RFC3339), SourcePath: sourcePath}
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return Resolved{}, err
	}
	if err := writeSynced(filepath.Join(tmp, "meta.json"), append(data, '\n'), 0o600); err != nil {
		return Resolved{}, err
	}
	if _, err := os.Lstat(final); err == nil {
		old := filepath.Join(nameDir, ".old-"+randSuffix())
		if err := os.Rename(final, old); err != nil {
			return Resolved{}, err
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, final); err != nil {
		return Resolved{}, err
	}
	if err := atomicfile.SyncDir(nameDir); err != nil {
		return Resolved{}, err
	}
	return Resolved{Scope: scope, Dir: final, TreeDir: filepath.Join(final, "tree"), SHA256: sum, Meta: meta}, nil
}

// writeSynced writes a new file and fsyncs it before closing.
func writeSynced(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
