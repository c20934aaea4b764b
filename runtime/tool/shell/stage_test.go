package shell

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/tool"
)

// TestStaged_STAGE2: a shell binary is staged as a runtime tool manifest
// with SHELL-3's schema.
func TestStaged_STAGE2(t *testing.T) {
	reg, _ := tool.Build(tool.Config{Grants: tool.Grants{ShellAllow: []string{"bash"}}, Shell: &Shell{}})
	dir := t.TempDir()
	if err := reg.Stage(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "tools", "bash", "murmur.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "staged_bash", string(b))
}
