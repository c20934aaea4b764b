package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// murBin is the real `mur` binary, built once for this package's tests by
// TestMain (ARCHITECTURE.md "Tests"). Every command's process tests share it:
// this package has exactly one TestMain, here.
var murBin string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mur-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkdir temp:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	murBin = filepath.Join(dir, "mur")
	build := exec.Command("go", "build", "-o", murBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build mur:", err)
		return 1
	}
	return m.Run()
}
