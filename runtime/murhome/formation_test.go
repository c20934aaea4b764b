package murhome

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGroupResolvesLinks: a directory's records group is that of its
// records form, as a session under it computes its own (GroupDir); a
// directory that does not exist is taken as written (RET-1).
func TestGroupResolvesLinks(t *testing.T) {
	t.Parallel()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	real := filepath.Join(root, "real", "formations", "frm_x")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "link")
	want := filepath.Join(home, "records", real[1:])
	if got := Group(home, FormationDir(home, "frm_x")); got != want {
		t.Errorf("Group through a link = %s, want %s", got, want)
	}
	if g, err := GroupDir(home, FormationDir(home, "frm_x")); err != nil || g != want {
		t.Errorf("GroupDir = %s, %v; want %s, the same group", g, err, want)
	}
	gone := filepath.Join(home, "formations", "frm_gone")
	if got := Group(home, gone); got != filepath.Join(home, "records", gone[1:]) {
		t.Errorf("Group of a missing directory = %s, want it as written", got)
	}
}

// TestReadMarker reads formation.json as the launcher writes it; a missing
// or malformed one is not ok.
func TestReadMarker(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, ok := ReadMarker(dir); ok {
		t.Error("ReadMarker of a directory without a marker is ok")
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, MarkerFile), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"project_dir":"/p","launcher_pid":42,"launcher_start":"9"}` + "\n")
	if m, ok := ReadMarker(dir); !ok || m != (Marker{ProjectDir: "/p", LauncherPID: 42, LauncherStart: "9"}) {
		t.Errorf("ReadMarker = %+v, %v", m, ok)
	}
	write(`{"project_dir":`)
	if _, ok := ReadMarker(dir); ok {
		t.Error("ReadMarker of a malformed marker is ok")
	}
}
