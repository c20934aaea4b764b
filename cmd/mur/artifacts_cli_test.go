package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/store"
)

// artEnv is one test's $MURMUR_HOME and a scratch root (symlinks resolved)
// for the install, list, new and doctor tests.
type artEnv struct {
	root, home string
}

func newArtEnv(t *testing.T) *artEnv {
	t.Helper()
	root := testmur.TempDir(t)
	return &artEnv{root: root, home: filepath.Join(root, "murmur-home")}
}

// mur runs the real binary in dir (relative to root) and returns stdout,
// stderr and the exit code.
func (e *artEnv) mur(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(murBin, args...)
	cmd.Dir = filepath.Join(e.root, dir)
	cmd.Env = append(os.Environ(), "MURMUR_HOME="+e.home)
	return testmur.Exec(t, cmd)
}

// write creates files under root (slash path → content; a trailing '*'
// marks an executable).
func (e *artEnv) write(t *testing.T, files map[string]string) {
	t.Helper()
	for p, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		full := filepath.Join(e.root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// tool writes a native tool artifact's source at dir.
func (e *artEnv) tool(t *testing.T, dir, name, version, body string) string {
	t.Helper()
	e.write(t, map[string]string{
		dir + "/murmur.yaml": "name: " + name + "\nversion: " + version + "\nruntime: tool\ncommand: run\n",
		dir + "/run*":        "#!/bin/sh\necho " + body + "\n",
	})
	sum, err := store.Hash(filepath.Join(e.root, dir))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// expect checks one run's outputs and code exactly.
func expect(t *testing.T, what string, gotOut, gotErr string, gotCode int, wantOut, wantErr string, wantCode int) {
	t.Helper()
	if gotOut != wantOut || gotErr != wantErr || gotCode != wantCode {
		t.Errorf("%s:\nstdout %q\nstderr %q\nexit %d\nwant\nstdout %q\nstderr %q\nexit %d", what, gotOut, gotErr, gotCode, wantOut, wantErr, wantCode)
	}
}

// golden compares got, with the test's root replaced by $ROOT, with
// testdata/<name>.golden.
func (e *artEnv) golden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name, strings.ReplaceAll(strings.ReplaceAll(got, e.root, "$ROOT"), kernelContainment(), "containment $KERNEL"))
}

// kernelContainment is mur doctor's containment check on this kernel for a
// manifest that declares none; goldens name it $KERNEL.
func kernelContainment() string {
	abi, err := proc.LandlockABI()
	if err != nil {
		return fmt.Sprintf("containment advisory (no Landlock: %v)", err)
	}
	return fmt.Sprintf("containment scoped (Landlock ABI %d)", abi)
}
