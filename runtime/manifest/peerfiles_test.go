package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPeerFilesGrants: exports.peer_files and capabilities.peer_fetch are
// built (no W-SEC-019); max_ttl defaults to 1h and is marked declared only
// when written; max_bytes defaults to 10Mi (tools.md PFILE-1, PFILE-3).
func TestPeerFilesGrants(t *testing.T) {
	t.Parallel()
	m, warns, err := Parse(file, []byte(head+"exports: {peer_files: {root: out}}\ncapabilities: {peer_fetch: {allow: [localhost]}}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warns {
		if strings.Contains(w.Render(), "peer_") {
			t.Errorf("warning for a built key: %s", w.Render())
		}
	}
	pf := m.Exports.PeerFiles
	if pf.MaxTTL != time.Hour || pf.TTLDeclared || pf.MaxBytes != 10<<20 || pf.Root != "out" {
		t.Errorf("peer_files = %+v, want root out, max_ttl 1h (not declared), max_bytes 10Mi", *pf)
	}
	if a := m.Capabilities.PeerFetch.Allow; len(a) != 1 || a[0].Host != "localhost" {
		t.Errorf("peer_fetch.allow = %+v", a)
	}
	m = mustParse(t, head+"exports: {peer_files: {root: out, max_ttl: 10m}}\nlifecycle: {task_acceptance: queue, after_task: sleep}\n", nil)
	if pf := m.Exports.PeerFiles; pf.MaxTTL != 10*time.Minute || !pf.TTLDeclared {
		t.Errorf("peer_files = %+v, want max_ttl 10m declared", *pf)
	}
}

// TestCheckPeerFilesTTL is E-CAP-008 for an after_task given later (mur
// run --lifecycle-after-task sleep): undeclared or over 15m is refused.
func TestCheckPeerFilesTTL(t *testing.T) {
	t.Parallel()
	m := mustParse(t, head+"exports: {peer_files: {root: out}}\n", nil)
	if d := m.CheckPeerFilesTTL("exit"); d != nil {
		t.Errorf("exit: %s", d.Render())
	}
	want := "error[E-CAP-008]: exports.peer_files with lifecycle.after_task: sleep requires exports.peer_files.max_ttl to be declared and at most 900s (not declared)\n  hint: declare exports.peer_files.max_ttl: 15m or shorter\n"
	if d := m.CheckPeerFilesTTL("sleep"); d == nil || d.Render() != want {
		t.Errorf("sleep, undeclared: %v", d)
	}
	m = mustParse(t, head+"exports: {peer_files: {root: out, max_ttl: 16m}}\n", nil)
	if d := m.CheckPeerFilesTTL("sleep"); d == nil || !strings.Contains(d.Render(), "(declared 960s)") {
		t.Errorf("sleep, 16m: %v", d)
	}
	m = mustParse(t, head+"exports: {peer_files: {root: out, max_ttl: 15m}}\n", nil)
	if d := m.CheckPeerFilesTTL("sleep"); d != nil {
		t.Errorf("sleep, 15m: %s", d.Render())
	}
}

// TestExportRootSymlink is E-CAP-007 for a root that exists as a symbolic
// link pointing out of the workdir (the murmur reference's launch refusal).
func TestExportRootSymlink(t *testing.T) {
	t.Parallel()
	wd, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(wd, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(wd, "in"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("in", filepath.Join(wd, "alias")); err != nil {
		t.Fatal(err)
	}
	m := mustParse(t, head+"exports: {peer_files: {root: out}}\n", nil)
	real, _ := filepath.EvalSymlinks(outside)
	want := "error[E-CAP-007]: exports.peer_files.root 'out' resolves to '" + real + "', which is outside the capsule workdir '" + wd + "'\n  hint: point the export root at a directory inside the workdir\n"
	if d := m.CheckExports(wd); d == nil || d.Render() != want {
		t.Errorf("CheckExports = %v, want %q", d, want)
	}
	m = mustParse(t, head+"exports: {peer_files: {root: alias}}\n", nil)
	if d := m.CheckExports(wd); d != nil {
		t.Errorf("a link inside the workdir: %s", d.Render())
	}
}
