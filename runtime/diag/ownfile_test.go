package diag_test

import (
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
)

// TestManFileOutsideGolden pins the text of an installed capsule's file that
// resolves outside its tree: E-MAN-003, the key's own hint.
func TestManFileOutsideGolden(t *testing.T) {
	t.Parallel()
	tree := "/home/u/.murmur/artifacts/leaky/1.0.0/tree"
	d := diag.ManFileOutside(tree+"/murmur.yaml", "inference.system_prompt_file", "../../../../../etc/passwd", "/etc/passwd", tree)
	if d.Code != diag.EMAN003 {
		t.Errorf("code = %s, want %s", d.Code, diag.EMAN003)
	}
	golden.Check(t, "file_outside", d.Render())
}
