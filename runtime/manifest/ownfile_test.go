package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/runtime/diag"
)

// TestOwnFile: inside the directory (lexically and with links evaluated) a
// file is read at its resolved path, a missing one is left to its reader;
// everything else is E-MAN-003.
func TestOwnFile(t *testing.T) {
	t.Parallel()
	dir, out := t.TempDir(), t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	out, _ = filepath.EvalSymlinks(out)
	for _, f := range []string{filepath.Join(dir, "p.md"), filepath.Join(out, "s.md")} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(out, "s.md"), filepath.Join(dir, "out.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("p.md", filepath.Join(dir, "in.md")); err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Path: filepath.Join(dir, FileName), Dir: dir}
	for _, c := range []struct{ value, want string }{
		{"p.md", filepath.Join(dir, "p.md")},
		{"./x/../p.md", filepath.Join(dir, "p.md")},
		{"in.md", filepath.Join(dir, "p.md")},
		{"missing.md", filepath.Join(dir, "missing.md")},
		{filepath.Join(dir, "p.md"), filepath.Join(dir, "p.md")},
	} {
		if got, err := m.OwnFile("k", c.value); err != nil || got != c.want {
			t.Errorf("OwnFile(%q) = %q, %v; want %q", c.value, got, err, c.want)
		}
	}
	for _, v := range []string{"out.md", "../s.md", "../../../../../../../../" + out + "/s.md", filepath.Join(out, "s.md"), ".", "..", "/"} {
		_, err := m.OwnFile("k", v)
		if d, ok := diag.As(err); !ok || d.Code != diag.EMAN003 {
			t.Errorf("OwnFile(%q) = %v, want E-MAN-003", v, err)
		}
	}
}
