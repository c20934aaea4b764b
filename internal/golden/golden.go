// Package golden compares test output with golden files (STYLE.md §9):
// testdata/<name>.golden beside the test's package, rewritten when the test
// binary runs with -update (review the diff before committing it). It is for
// tests only; like testing/fstest it imports "testing" and the standard
// library, nothing else.
//
// # Example
//
//	func TestUsage(t *testing.T) {
//		golden.Check(t, "usage", usage()) // testdata/usage.golden
//	}
//
//	$ go test ./cmd/mur -run TestUsage -update
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is -update, registered once for every test binary that imports
// this package.
var update = flag.Bool("update", false, "rewrite golden files")

// Update reports whether the test binary runs with -update. Tests that keep
// other generated files in step (a fuzz corpus) rewrite them when it is set.
func Update() bool { return *update }

// Path returns the golden file of name: testdata/<name>.golden, relative to
// the test's package directory.
func Path(name string) string { return filepath.Join("testdata", name+".golden") }

// Check compares got with the golden file of name, byte for byte. Under
// -update it first writes got there. A file that cannot be read or written
// stops the test (Fatal); a difference fails it (Errorf) and shows both
// texts and the first line that differs.
func Check[T ~string | ~[]byte](t testing.TB, name string, got T) {
	t.Helper()
	path := Path(name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from %s (rewrite with -update, review the diff)\n%s", name, path, Diff(string(got), string(want)))
	}
}

// Diff describes how got differs from want: the first differing line, quoted,
// then both texts in full.
func Diff(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	line := func(ls []string) string {
		if i < len(ls) {
			return fmt.Sprintf("%q", ls[i])
		}
		return "(end of text)"
	}
	return fmt.Sprintf("first difference at line %d:\n  got  %s\n  want %s\ngot:\n%s\nwant:\n%s", i+1, line(g), line(w), got, want)
}
