package store

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
)

// env is a project directory, a $MURMUR_HOME and their stores.
type env struct {
	project, home string
	ss            Stores
}

func newEnv(t *testing.T) env {
	t.Helper()
	project, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(project, manifest.FileName), []byte("name: p\nversion: 1.0.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return env{project: project, home: home, ss: Stores{ProjectDir: project, Home: home}}
}

// toolSrc writes a tool artifact's source directory.
func toolSrc(t *testing.T, name, version, body string) string {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"murmur.yaml": "name: " + name + "\nversion: " + version + "\nruntime: tool\ncommand: run\n",
		"run*":        "#!/bin/sh\necho " + body + "\n",
	})
	return dir
}

func id(name, version string) ArtifactID {
	return ArtifactID{Name: name, Version: version, Runtime: "tool"}
}

func renderErr(t *testing.T, err error) string {
	t.Helper()
	d, ok := diag.As(err)
	if !ok {
		t.Fatalf("error = %v (%T), want a diagnostic", err, err)
	}
	return d.Render()
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestInstallProject is CLI-6 into the project store: tree, meta.json, modes, lock.
func TestInstallProject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src := toolSrc(t, "tool-edit", "1.0.0", "one")
	writeTree(t, src, map[string]string{".env": "SECRET=x", ".git/HEAD": "x"})
	r, err := e.ss.Install(src, id("tool-edit", "1.0.0"), ScopeProject)
	if err != nil {
		t.Fatalf("Install() error = %v", err)
	}
	want, _ := Hash(src)
	dir := filepath.Join(e.project, ".murmur", "artifacts", "tool-edit", "1.0.0")
	if r.Dir != dir || r.SHA256 != want || r.Scope != ScopeProject {
		t.Errorf("Install() = %+v, want dir %s sha %s", r, dir, want)
	}
	for _, d := range []string{filepath.Join(e.project, ".murmur"), filepath.Join(e.project, ".murmur", "artifacts"), dir, filepath.Join(dir, "tree")} {
		if m := mode(t, d); m != 0o700 {
			t.Errorf("mode(%s) = %o, want 700 (STORE-2)", d, m)
		}
	}
	if m := mode(t, filepath.Join(dir, "meta.json")); m != 0o600 {
		t.Errorf("meta.json mode = %o, want 600", m)
	}
	if m := mode(t, filepath.Join(dir, "tree", "run")); m != 0o755 {
		t.Errorf("tree/run mode = %o, want 755", m)
	}
	for _, skipped := range []string{".env", ".git"} {
		if _, err := os.Stat(filepath.Join(dir, "tree", skipped)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was copied into the store (STORE-4)", skipped)
		}
	}
	var meta map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "version", "runtime", "sha256", "installed_at", "source_path"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("meta.json lacks %s", k)
		}
	}
	lock, err := ReadLock(e.project)
	if err != nil || lock == nil {
		t.Fatalf("ReadLock() = %v, %v", lock, err)
	}
	wantEntry := LockEntry{Name: "tool-edit", ResolvedVersion: "1.0.0", Runtime: "tool", SHA256: want, Origin: "operator"}
	if e, ok := lock.Find("tool-edit"); !ok || e != wantEntry {
		t.Errorf("lock entry = %+v, want %+v", e, wantEntry)
	}
	lockText, _ := os.ReadFile(filepath.Join(e.project, LockFile))
	if !strings.HasPrefix(string(lockText), "lock_version: 2\nartifacts:\n") {
		t.Errorf("murmur.lock = %q, want lock_version 2 first", lockText)
	}
}

// TestInstallGlobal is CLI-6 -g: the global store, no lock.
func TestInstallGlobal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, err := e.ss.Install(toolSrc(t, "t", "1.0.0", "g"), id("t", "1.0.0"), ScopeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(e.home, "artifacts", "t", "1.0.0"); r.Dir != want {
		t.Errorf("Install(-g) dir = %s, want %s", r.Dir, want)
	}
	if _, err := os.Stat(filepath.Join(e.project, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Error("a global install wrote murmur.lock (STORE-5)")
	}
}

// TestInstallReplaceAndPin is CLI-6: the global store refuses other bytes
// under a stored name@version (E-REG-006) and InstallForce replaces them,
// naming what it replaced; the project store replaces unless the lock pins
// another (E-REG-005); a refusal changes nothing.
func TestInstallReplaceAndPin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first, err := e.ss.Install(toolSrc(t, "t", "1.0.0", "one"), id("t", "1.0.0"), ScopeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.ss.Install(toolSrc(t, "t", "1.0.0", "two"), id("t", "1.0.0"), ScopeGlobal); !diag.Is(err, diag.EREG006) {
		t.Fatalf("reinstall of other bytes = %v; want E-REG-006", err)
	}
	if r, err := e.ss.Resolve("t", "1.0.0"); err != nil || r.SHA256 != first.SHA256 {
		t.Errorf("Resolve after a refused replace = %+v, %v", r, err)
	}
	second, err := e.ss.InstallForce(toolSrc(t, "t", "1.0.0", "two"), id("t", "1.0.0"), ScopeGlobal)
	if err != nil || second.SHA256 == first.SHA256 || second.Replaced == nil || second.Replaced.SHA256 != first.SHA256 {
		t.Fatalf("forced reinstall = %+v, %v; want a replaced install naming the old digest", second, err)
	}
	if r, err := e.ss.Resolve("t", "1.0.0"); err != nil || r.SHA256 != second.SHA256 {
		t.Errorf("Resolve after replace = %+v, %v", r, err)
	}

	pinned, err := e.ss.Install(toolSrc(t, "p", "1.0.0", "one"), id("p", "1.0.0"), ScopeProject)
	if err != nil {
		t.Fatal(err)
	}
	other := toolSrc(t, "p", "1.0.0", "changed")
	otherSum, _ := Hash(other)
	_, err = e.ss.Install(other, id("p", "1.0.0"), ScopeProject)
	want := "error[E-REG-005]: murmur.lock pins p at 1.0.0@sha256:" + pinned.SHA256 + ", but this install is 1.0.0@sha256:" + otherSum + "\n  hint: run mur install --force " + other + " to replace the pin with this install, or give it another version\n"
	if got := renderErr(t, err); got != want {
		t.Errorf("Install(changed bytes) error = %q, want %q", got, want)
	}
	newer := toolSrc(t, "p", "2.0.0", "one")
	newerSum, _ := Hash(newer)
	_, err = e.ss.Install(newer, id("p", "2.0.0"), ScopeProject)
	want = "error[E-REG-005]: murmur.lock pins p at 1.0.0@sha256:" + pinned.SHA256 + ", but this install is 2.0.0@sha256:" + newerSum + "\n  hint: run mur install --force " + newer + " to replace the pin with this install, or give it another version\n"
	if got := renderErr(t, err); got != want {
		t.Errorf("Install(other version) error = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(e.ss.Root(ScopeProject), "p", "2.0.0")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused install left p@2.0.0 in the store")
	}
	if r, err := e.ss.Resolve("p", "1.0.0"); err != nil || r.SHA256 != pinned.SHA256 {
		t.Errorf("a refused install changed p@1.0.0: %+v, %v", r, err)
	}

	// InstallForce replaces the pin and reports the one it replaced.
	forced, err := e.ss.InstallForce(other, id("p", "1.0.0"), ScopeProject)
	if err != nil || forced.SHA256 != otherSum || forced.Repinned == nil || forced.Repinned.SHA256 != pinned.SHA256 || forced.Repinned.ResolvedVersion != "1.0.0" {
		t.Fatalf("InstallForce = %+v, %v", forced, err)
	}
	lock, err := ReadLock(e.ss.ProjectDir)
	if pin, ok := lock.Find("p"); err != nil || !ok || pin.SHA256 != otherSum {
		t.Errorf("lock after InstallForce = %+v, %v", pin, err)
	}
	again, err := e.ss.InstallForce(other, id("p", "1.0.0"), ScopeProject)
	if err != nil || again.Repinned != nil {
		t.Errorf("InstallForce of what is pinned = %+v, %v; want no re-pin", again, err)
	}
}

// TestResolve is STORE-3 (project, then global) and STORE-4/STORE-7's
// sentinels: not installed, tampered (E-REG-002), unreadable.
func TestResolve(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g, err := e.ss.Install(toolSrc(t, "t", "1.0.0", "global"), id("t", "1.0.0"), ScopeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := e.ss.Resolve("t", "1.0.0"); err != nil || r.Scope != ScopeGlobal || r.TreeDir != filepath.Join(g.Dir, "tree") {
		t.Errorf("Resolve(global only) = %+v, %v", r, err)
	}
	p, err := e.ss.Install(toolSrc(t, "t", "1.0.0", "project"), id("t", "1.0.0"), ScopeProject)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := e.ss.Resolve("t", "1.0.0"); err != nil || r.Scope != ScopeProject || r.SHA256 != p.SHA256 {
		t.Errorf("Resolve(both) = %+v, %v; want the project store first", r, err)
	}
	if _, err := e.ss.Resolve("t", "9.9.9"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("Resolve(absent) error = %v, want ErrNotInstalled", err)
	}
	if _, err := (Stores{Home: e.home}).Resolve("t", "1.0.0"); err != nil {
		t.Errorf("Resolve without a project = %v, want the global store", err)
	}

	// Tamper with the project copy: E-REG-002 naming meta.json; the global copy is not consulted.
	if err := os.WriteFile(filepath.Join(p.TreeDir, "run"), []byte("#!/bin/sh\necho evil\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = e.ss.Resolve("t", "1.0.0")
	actual, _ := Hash(p.TreeDir)
	want := "error[E-REG-002]: t@1.0.0 in the project store hashes to sha256:" + actual + ", but meta.json records sha256:" + p.SHA256 + "\n  hint: reinstall it with mur install\n"
	if got := renderErr(t, err); got != want || !errors.Is(err, ErrHashMismatch) {
		t.Errorf("Resolve(tampered) error = %q, want %q wrapping ErrHashMismatch", got, want)
	}

	// An unreadable meta.json or a tree without murmur.yaml.
	if err := os.Remove(filepath.Join(g.TreeDir, "murmur.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err = (Stores{Home: e.home}).Resolve("t", "1.0.0")
	want = "error[E-IO-001]: " + filepath.Join(g.TreeDir, "murmur.yaml") + ": no such file or directory\n  hint: check the path\n"
	if got := renderErr(t, err); got != want || !errors.Is(err, ErrManifestUnreadable) {
		t.Errorf("Resolve(no murmur.yaml) error = %q, want %q wrapping ErrManifestUnreadable", got, want)
	}
	if err := os.WriteFile(filepath.Join(g.Dir, "meta.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Stores{Home: e.home}).Resolve("t", "1.0.0"); !errors.Is(err, ErrManifestUnreadable) {
		t.Errorf("Resolve(bad meta.json) error = %v, want ErrManifestUnreadable", err)
	}
}

// TestReadArtifact reads an installed tool's manifest for staging (STORE-8).
func TestReadArtifact(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, err := e.ss.Install(toolSrc(t, "t", "1.0.0", "x"), id("t", "1.0.0"), ScopeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadArtifact(r.TreeDir)
	if err != nil || m.CommandPath() != filepath.Join(r.TreeDir, "run") || string(m.InputSchema) != `{"type":"object"}` {
		t.Errorf("ReadArtifact() = %+v, %v", m, err)
	}
	if _, err := ReadArtifact(t.TempDir()); !errors.Is(err, ErrManifestUnreadable) {
		t.Errorf("ReadArtifact(empty) error = %v, want ErrManifestUnreadable", err)
	}
}

// TestFindProject is STORE-2's <project>.
func TestFindProject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"roster.yaml": "version: 1\n", "a/b/.keep": ""})
	if got, ok := FindProject(filepath.Join(root, "a", "b")); !ok || got != root {
		t.Errorf("FindProject(below a roster) = %q, %v; want %q", got, ok, root)
	}
	writeTree(t, root, map[string]string{"a/murmur.yaml": "name: a\n"})
	if got, ok := FindProject(filepath.Join(root, "a", "b")); !ok || got != filepath.Join(root, "a") {
		t.Errorf("FindProject(nearest) = %q, %v", got, ok)
	}
}

// TestHome is $MURMUR_HOME, else ~/.murmur.
