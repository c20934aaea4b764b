package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/manifest"
)

// capsule parses a capsule manifest declaring artifacts (name@version pairs).
func capsule(t *testing.T, project string, refs ...string) *manifest.Manifest {
	t.Helper()
	yaml := "name: c\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: s.yaml}}\nartifacts:\n"
	for i := 0; i+1 < len(refs); i += 2 {
		yaml += "  - {name: " + refs[i] + ", version: " + refs[i+1] + "}\n"
	}
	m, _, err := manifest.Parse(filepath.Join(project, manifest.FileName), []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReadLock is STORE-5's lock_version rule (E-RUN-003) and round trip.
func TestReadLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if l, err := ReadLock(dir); l != nil || err != nil {
		t.Errorf("ReadLock(none) = %v, %v; want nil, nil", l, err)
	}
	want := &Lock{LockVersion: 2, Artifacts: []LockEntry{{Name: "a", ResolvedVersion: "1.10", Runtime: "tool", SHA256: "ab", Origin: "runtime"}}}
	if err := WriteLock(dir, want); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadLock(dir); err != nil || got.Artifacts[0] != want.Artifacts[0] {
		t.Errorf("ReadLock() = %+v, %v; want %+v", got, err, want)
	}
	for text, msg := range map[string]string{
		"lock_version: 1\nartifacts: []\n": "error[E-RUN-003]: murmur.lock: lock_version 1 is not supported; this mur reads 2\n  hint: move murmur.lock aside, then run mur install: it writes a lock this mur reads\n",
		"artifacts: []\n":                  "error[E-RUN-003]: murmur.lock: lock_version (none) is not supported; this mur reads 2\n  hint: move murmur.lock aside, then run mur install: it writes a lock this mur reads\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, LockFile), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadLock(dir)
		if got := renderErr(t, err); got != msg {
			t.Errorf("ReadLock(%q) error = %q, want %q", text, got, msg)
		}
	}
}

// TestCheckArtifacts is MAN-4 step (8) (STORE-3..6).
func TestCheckArtifacts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, _ := e.ss.Install(toolSrc(t, "a", "1.0.0", "a"), id("a", "1.0.0"), ScopeGlobal)
	b, _ := e.ss.Install(toolSrc(t, "b", "2.0.0", "b"), id("b", "2.0.0"), ScopeGlobal)

	// No lock: bound, and the lock is created only when asked to write.
	m := capsule(t, e.project, "a", "1.0.0", "scope/b", "2.0.0")
	bound, err := e.ss.CheckArtifacts(m, false)
	if err != nil || len(bound) != 2 || bound[1].SHA256 != b.SHA256 || bound[1].Artifact.Ref != "scope/b" {
		t.Fatalf("CheckArtifacts() = %+v, %v", bound, err)
	}
	if _, err := os.Stat(filepath.Join(e.project, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("CheckArtifacts(write=false) wrote murmur.lock")
	}
	if _, err := e.ss.CheckArtifacts(m, true); err != nil {
		t.Fatal(err)
	}
	lock, err := ReadLock(e.project)
	if err != nil || len(lock.Artifacts) != 2 || lock.Artifacts[0].SHA256 != a.SHA256 || lock.Artifacts[1].Origin != "operator" {
		t.Fatalf("created lock = %+v, %v", lock, err)
	}

	// E-RUN-003: an artifact without an entry.
	_, err = e.ss.CheckArtifacts(capsule(t, e.project, "a", "1.0.0", "c", "3.0.0"), true)
	if got, want := renderErr(t, err), "error[E-RUN-003]: murmur.lock has no entry for c@3.0.0\n  hint: run mur install\n"; got != want {
		t.Errorf("no entry: %q, want %q", got, want)
	}

	// E-RUN-008 lists every missing artifact.
	noLock := Stores{Home: e.home, ProjectDir: t.TempDir()}
	_, err = noLock.CheckArtifacts(capsule(t, noLock.ProjectDir, "x", "1.0.0", "a", "1.0.0", "y/z", "2.0.0"), true)
	if got, want := renderErr(t, err), "error[E-RUN-008]: missing artifacts: x@1.0.0, y/z@2.0.0\n  hint: run `mur install` to install all manifest dependencies\n"; got != want {
		t.Errorf("missing: %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(noLock.ProjectDir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused check created murmur.lock")
	}

	// E-REG-005: the manifest declares another version than the pin.
	b3, _ := e.ss.Install(toolSrc(t, "b", "3.0.0", "b3"), id("b", "3.0.0"), ScopeGlobal)
	_, err = e.ss.CheckArtifacts(capsule(t, e.project, "a", "1.0.0", "b", "3.0.0"), true)
	want := "error[E-REG-005]: murmur.lock pins b at 2.0.0@sha256:" + b.SHA256 + ", but the manifest declares 3.0.0@sha256:" + b3.SHA256 + "\n  hint: change the pin or the version\n"
	if got := renderErr(t, err); got != want {
		t.Errorf("pin: %q, want %q", got, want)
	}

	// E-REG-002 naming murmur.lock: reinstalled bytes the lock does not record.
	a2, _ := e.ss.InstallForce(toolSrc(t, "a", "1.0.0", "a-again"), id("a", "1.0.0"), ScopeGlobal)
	_, err = e.ss.CheckArtifacts(m, true)
	want = "error[E-REG-002]: a@1.0.0 in the global store hashes to sha256:" + a2.SHA256 + ", but murmur.lock records sha256:" + a.SHA256 + "\n  hint: reinstall it with mur install\n"
	if got := renderErr(t, err); got != want || !errors.Is(err, ErrHashMismatch) {
		t.Errorf("lock hash: %q, want %q", got, want)
	}

	// CheckArtifact gives doctor the same verdicts one artifact at a time.
	if _, err := e.ss.CheckArtifact(lock, m.Artifacts[1]); err != nil {
		t.Errorf("CheckArtifact(b) = %v", err)
	}
	_, err = e.ss.CheckArtifact(nil, manifest.Artifact{Ref: "q/x", Name: "x", Version: "1.0.0"})
	if got, want := renderErr(t, err), "error[E-RUN-008]: missing artifacts: q/x@1.0.0\n  hint: run `mur install` to install all manifest dependencies\n"; got != want {
		t.Errorf("CheckArtifact(missing) = %q, want %q", got, want)
	}
}

// TestInstallFromGlobal is `mur install` and `mur install <name>@<version>` (CLI-6).
func TestInstallFromGlobal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, _ := e.ss.Install(toolSrc(t, "a", "1.0.0", "a"), id("a", "1.0.0"), ScopeGlobal)
	_, err := e.ss.InstallFromGlobal([]ArtifactID{{Name: "a", Version: "1.0.0"}, {Name: "x", Version: "1.0.0"}, {Name: "y", Version: "2.0.0"}})
	if got, want := renderErr(t, err), "error[E-REG-001]: not in the global store: x@1.0.0, y@2.0.0\n  hint: install it with mur install -g <dir>\n"; got != want {
		t.Errorf("InstallFromGlobal(missing) = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(e.ss.Root(ScopeProject), "a")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused install copied a into the project store")
	}
	rs, err := e.ss.InstallFromGlobal([]ArtifactID{{Name: "a", Version: "1.0.0"}})
	if err != nil || len(rs) != 1 || rs[0].Scope != ScopeProject || rs[0].SHA256 != a.SHA256 || rs[0].Meta.Runtime != "tool" {
		t.Fatalf("InstallFromGlobal() = %+v, %v", rs, err)
	}
	if lock, _ := ReadLock(e.project); lock == nil || lock.Artifacts[0].SHA256 != a.SHA256 {
		t.Errorf("lock after install = %+v", lock)
	}
	// A second run only pins what the project already holds.
	if rs, err := e.ss.InstallFromGlobal([]ArtifactID{{Name: "a", Version: "1.0.0"}}); err != nil || rs[0].Scope != ScopeProject {
		t.Errorf("InstallFromGlobal(again) = %+v, %v", rs, err)
	}
	// A damaged project copy is replaced from the global store.
	if err := os.WriteFile(filepath.Join(rs[0].TreeDir, "run"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rs, err := e.ss.InstallFromGlobal([]ArtifactID{{Name: "a", Version: "1.0.0"}}); err != nil || rs[0].SHA256 != a.SHA256 {
		t.Errorf("InstallFromGlobal(damaged) = %+v, %v", rs, err)
	}
}

// TestList is CLI-7's order: name, then version with numeric segments.
func TestList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, nv := range [][2]string{{"b", "1.10.0"}, {"b", "1.9.0"}, {"a", "2.0.0"}} {
		if _, err := e.ss.Install(toolSrc(t, nv[0], nv[1], "x"), id(nv[0], nv[1]), ScopeGlobal); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := e.ss.List(ScopeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Meta.Name+"@"+r.Meta.Version)
	}
	if want := "a@2.0.0 b@1.9.0 b@1.10.0"; joinSpace(got) != want {
		t.Errorf("List() = %s, want %s", joinSpace(got), want)
	}
	if rows, err := e.ss.List(ScopeProject); err != nil || len(rows) != 0 {
		t.Errorf("List(empty project) = %v, %v", rows, err)
	}
	for _, c := range []struct {
		a, b string
		want int
	}{{"1.9", "1.10", -1}, {"1.10", "1.9", 1}, {"1.0.0", "1.0.0", 0}, {"1.0", "1.0.1", -1}, {"1.0.0-beta", "1.0.0-alpha", 1}} {
		if got := CompareVersions(c.a, c.b); (got < 0) != (c.want < 0) || (got > 0) != (c.want > 0) {
			t.Errorf("CompareVersions(%s, %s) = %d, want sign of %d", c.a, c.b, got, c.want)
		}
	}
}

func joinSpace(s []string) string { return strings.Join(s, " ") }

// TestWriteLockGolden is murmur.lock's exact form (STORE-5).
func TestWriteLockGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := &Lock{Artifacts: []LockEntry{
		{Name: "tool-edit", ResolvedVersion: "1.10", Runtime: "tool", SHA256: "28be1b023d94c4d5e67c5a3582bfcc4448778ad7d30b1f8753e30501350cf3b9", Origin: OriginOperator},
		{Name: "review", ResolvedVersion: "2.0.0", Runtime: "skill", SHA256: "0000000000000000000000000000000000000000000000000000000000000000", Origin: OriginRuntime},
	}}
	if err := WriteLock(dir, l); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, LockFile))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "murmur.lock", string(data))
}
