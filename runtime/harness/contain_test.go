package harness_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/murmur-go/mur/runtime/harness"
)

// TestGrants: each dialect's config and state directory under HOME (or
// its own variable), <H>/tmp as its temp directory, the binary's
// directory and its install tree (an npm .bin link resolves into
// node_modules).
func TestGrants(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	pkg := filepath.Join(root, "lib", "node_modules", "@x", "cli", "bin")
	bin := filepath.Join(root, "lib", "node_modules", ".bin")
	for _, d := range []string{pkg, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(pkg, "cli.js"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(bin, "cli")
	if err := os.Symlink("../@x/cli/bin/cli.js", link); err != nil {
		t.Fatal(err)
	}
	nm := filepath.Join(root, "lib", "node_modules")
	for _, c := range []struct {
		d    harness.Dialect
		env  []string
		want harness.Grants
	}{
		{harness.Claude, []string{"HOME=/h"}, harness.Grants{ReadWrite: []string{"/h/.claude", "/h/.claude.json", "/H/tmp"},
			ReadOnly: []string{bin, nm}, Env: []string{"CLAUDE_CODE_TMPDIR=/H/tmp"}}},
		{harness.Claude, []string{"HOME=/h", "CLAUDE_CONFIG_DIR=/c"}, harness.Grants{ReadWrite: []string{"/c", "/H/tmp"},
			ReadOnly: []string{bin, nm}, Env: []string{"CLAUDE_CODE_TMPDIR=/H/tmp"}}},
		{harness.Codex, []string{"HOME=/h"}, harness.Grants{ReadWrite: []string{"/h/.codex", "/H/tmp"},
			ReadOnly: []string{bin, nm}, Env: []string{"TMPDIR=/H/tmp"}}},
		{harness.Codex, []string{"HOME=relative", "CODEX_HOME=/x"}, harness.Grants{ReadWrite: []string{"/x", "/H/tmp"},
			ReadOnly: []string{bin, nm}, Env: []string{"TMPDIR=/H/tmp"}}},
	} {
		if got := c.d.Grants(c.env, link, "/H"); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %v: Grants = %+v, want %+v", c.d.Name, c.env, got, c.want)
		}
	}
	if got := harness.InstallTree("/usr/local/bin/claude"); got != "/usr/local/bin" {
		t.Errorf("InstallTree outside node_modules = %s", got)
	}
}
