package diag_test

import (
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
)

// TestBoundsGolden pins the exact texts of the input bounds:
// a manifest or roster over 1 MiB, a roster over 256 members.
func TestBoundsGolden(t *testing.T) {
	t.Parallel()
	got := diag.ManTooLarge("/proj/murmur.yaml", 1<<20).Render() +
		diag.RosTooLarge("/proj/roster.yaml", 1<<20).Render() +
		diag.RosTooManyMembers(2, 1, 64000, 256).Render()
	golden.Check(t, "bounds", got)
	for _, c := range []struct {
		d    *diag.Diagnostic
		code diag.Code
	}{{diag.ManTooLarge("m", 1<<20), diag.EMAN004}, {diag.RosTooLarge("r", 1<<20), diag.EROS001}, {diag.RosTooManyMembers(1, 1, 3, 2), diag.EROS001}} {
		if c.d.Code != c.code {
			t.Errorf("%q has code %s, want %s", c.d.Msg, c.d.Code, c.code)
		}
	}
}
