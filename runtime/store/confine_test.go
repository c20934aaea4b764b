package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestListSkipsForeignMeta: a store entry whose meta.json names another
// name or version than its directories is left out of List, so nothing
// builds a path from its words (pull-artifact's tree path
// came from meta.json's version); a bad name or version never reaches a
// lookup (ErrBadRef).
func TestListSkipsForeignMeta(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, err := e.ss.Install(toolSrc(t, "t", "1.0.0", "g"), id("t", "1.0.0"), ScopeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := e.ss.List(ScopeGlobal)
	if err != nil || len(ls) != 1 {
		t.Fatalf("List = %+v, %v; want the one entry", ls, err)
	}
	meta, err := os.ReadFile(filepath.Join(r.Dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(meta), `"version": "1.0.0"`, `"version": "../../../x"`, 1)
	if forged == string(meta) {
		t.Fatalf("meta.json holds no version to forge: %s", meta)
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "meta.json"), []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	if ls, err := e.ss.List(ScopeGlobal); err != nil || len(ls) != 0 {
		t.Errorf("List with a forged meta.json = %+v, %v; want it left out", ls, err)
	}
	for _, ref := range [][2]string{{"t", "../../../x"}, {"t", ".."}, {"../t", "1.0.0"}, {"T", "1.0.0"}} {
		if _, err := e.ss.Resolve(ref[0], ref[1]); !errors.Is(err, ErrBadRef) {
			t.Errorf("Resolve(%q, %q) = %v, want ErrBadRef", ref[0], ref[1], err)
		}
	}
}
