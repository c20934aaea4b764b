//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
)

// mur run --explain-scope prints the containment and what a tool process
// could reach, text and --json, and makes nothing: no records, no runtime
// directory. --containment raises the manifest's class (advisory to
// sealed) and cannot lower it (sealed stays sealed under --containment
// advisory).
func TestRunExplainScope(t *testing.T) {
	needLandlock(t)
	for _, c := range []struct {
		golden, manifestClass string
		args                  []string
	}{
		{"explain-scope-sealed", "sealed", []string{"--containment", "advisory"}},
		{"explain-scope-sealed-json", "advisory", []string{"--containment", "sealed", "--json"}},
		{"explain-scope-scoped", "scoped", nil},
	} {
		files := sealedBash("true", "  resources:\n    max_open_files: 64\n")
		files["murmur.yaml"] = strings.Replace(files["murmur.yaml"], "containment: sealed", "containment: "+c.manifestClass, 1)
		e := newRunEnv(t, files)
		cmd := e.command(append([]string{"--capsule", e.dir, "--explain-scope"}, c.args...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "MURMUR_HOME=" + e.home, "HOME=" + e.home}
		out, errOut, code := testmur.Exec(t, cmd)
		if code != 0 {
			if strings.Contains(errOut, "E-CAP-003") {
				t.Skipf("this machine cannot seal: %s", errOut)
			}
			t.Fatalf("%s: mur run --explain-scope = %d, stderr %q", c.golden, code, errOut)
		}
		out = strings.ReplaceAll(strings.ReplaceAll(out, e.dir, "<dir>"), e.home, "<home>")
		if os.Getuid() != 0 {
			out = strings.ReplaceAll(out, "userns+", "")
		}
		golden.Check(t, c.golden, out)
		for _, made := range []string{filepath.Join(e.home, "records"), filepath.Join(e.dir, ".murmur")} {
			if _, err := os.Stat(made); err == nil {
				t.Errorf("%s: --explain-scope made %s", c.golden, made)
			}
		}
	}
}
