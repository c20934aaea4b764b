package diag_test

import (
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
)

// TestContainmentGolden pins E-CAP-003 (scoped asked of a kernel
// without Landlock).
func TestContainmentGolden(t *testing.T) {
	t.Parallel()
	d := diag.CapContainment("/proj/murmur.yaml", "landlock_create_ruleset: function not implemented")
	golden.Check(t, "containment", d.Render())
	if d.Code != diag.ECAP003 {
		t.Errorf("code = %s, want E-CAP-003", d.Code)
	}
}
