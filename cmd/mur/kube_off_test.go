//go:build !kube

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// TestKubeHandedToMurKube: a mur built without the kube tag links no
// Kubernetes client; `mur run --roster --on kubernetes` and a member pod's
// `mur __kube-member` become mur-kube with the same arguments — the one
// beside mur before the one on PATH — and with neither there, E-RUN-052
// says how to build it (docs/kubernetes.md).
func TestKubeHandedToMurKube(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // this mur's own directory, so a mur-kube beside it is this test's alone
	self := filepath.Join(dir, "mur")
	copyFile(t, murBin, self)
	onPath := t.TempDir()
	fake := func(d, name string) {
		script := "#!/bin/sh\necho " + name + "\nprintf '%s\\n' \"$@\"\nexit 7\n"
		if err := os.WriteFile(filepath.Join(d, "mur-kube"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(self, args...)
		cmd.Env = append(os.Environ(), "MURMUR_HOME="+t.TempDir(), "PATH="+onPath+":/usr/bin:/bin")
		return testmur.Exec(t, cmd)
	}
	onKube := []string{"run", "--roster", ".", "--on", "kubernetes", "--image", "mur:1", "--task", "x"}
	member := []string{"__kube-member", "--lease", "l", "--channel", "/c", "--", "run", "--manifest", "m"}

	want := "error[E-RUN-052]: this mur is built without Kubernetes support, and no mur-kube (mur built with it) was found in " + dir + " or on PATH\n" +
		"  hint: build it from mur's source tree: go build -tags kube -o \"$(go env GOPATH)/bin/mur-kube\" ./cmd/mur, with $(go env GOPATH)/bin on PATH; the mur image holds a mur built with it\n"
	for _, args := range [][]string{onKube, member} {
		if out, errOut, code := run(args...); code != 1 || out != "" || errOut != want {
			t.Errorf("mur %s with no mur-kube = %d %q\nstderr %q\nwant 1 and %q", args[0], code, out, errOut, want)
		}
	}

	fake(onPath, "path")
	for _, args := range [][]string{onKube, member} {
		if out, errOut, code := run(args...); code != 7 || out != "path\n"+strings.Join(args, "\n")+"\n" || errOut != "" {
			t.Errorf("mur %s with mur-kube on PATH = %d\nstdout %q\nstderr %q", args[0], code, out, errOut)
		}
	}
	fake(dir, "beside")
	if out, _, code := run(onKube...); code != 7 || out != "beside\n"+strings.Join(onKube, "\n")+"\n" {
		t.Errorf("mur run --on kubernetes with mur-kube beside and on PATH = %d %q, want the one beside", code, out)
	}
	// Without --on kubernetes nothing is handed on: the roster is this mur's.
	if _, errOut, code := run("run", "--roster", filepath.Join(dir, "none"), "--task", "x"); code != 1 || !strings.HasPrefix(errOut, "error[E-") || strings.Contains(errOut, "E-RUN-052") {
		t.Errorf("mur run --roster without --on = %d %q", code, errOut)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
