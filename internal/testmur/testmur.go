// Package testmur runs a test package's TestMain for process tests
// (ARCHITECTURE.md "Tests"): it builds the real binary once per package into
// a temporary directory and removes it after the tests, or gives the tests a
// MURMUR_HOME of their own. It is for tests only, imports the standard
// library and runtime/wire (the lines it decodes) only, and is importable by
// anything.
//
// # Example
//
//	// murBin is the real mur binary, built once by TestMain.
//	var murBin string
//
//	func TestMain(m *testing.M) { os.Exit(testmur.Run(m, testmur.Mur, &murBin)) }
package testmur

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
)

// Mur is the import path of the mur command.
const Mur = "github.com/murmur-go/mur/cmd/mur"

// Run builds the main package pkg (an import path, or a directory relative
// to the test's package, like "./testdata/fakemember") into a fresh
// temporary directory, sets *bin to the binary's path, runs m's tests and
// removes the directory. It returns m.Run's code, or 1 (having said why on
// stderr, with the go tool's output) when the directory or the build fails.
// The build carries the murtest tag, under which a test may shorten a
// harness's fixed limits (process.md PTEST-4); release builds read no
// such knob.
func Run(m *testing.M, pkg string, bin *string) int {
	dir, err := os.MkdirTemp("", "mur-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testmur:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	*bin = filepath.Join(dir, path.Base(pkg))
	if out, err := Combined(exec.Command("go", "build", "-tags", "murtest", "-o", *bin, pkg)); err != nil {
		fmt.Fprintf(os.Stderr, "testmur: build %s: %v\n%s", pkg, err, out)
		return 1
	}
	return m.Run()
}

// WithHome points MURMUR_HOME at a fresh temporary directory, so that
// nothing the tests do touches the user's, runs m's tests and removes the
// directory. It returns m.Run's code, or 1 when the directory fails.
func WithHome(m *testing.M) int {
	home, err := os.MkdirTemp("", "mur-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testmur:", err)
		return 1
	}
	defer os.RemoveAll(home)
	if err := os.Setenv("MURMUR_HOME", home); err != nil {
		fmt.Fprintln(os.Stderr, "testmur:", err)
		return 1
	}
	return m.Run()
}
