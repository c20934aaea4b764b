package harness

import (
	"regexp"
	"strings"
	"testing"
)

// TestSafeContext holds safeContext to the pattern it spells out.
func TestSafeContext(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)
	ids := []string{"", "a", "_", ".", "-", "a.b-c_D9", ".hidden", "-x", "x.", "a/b", "..", "a b", "a\n", "ctx-é",
		strings.Repeat("a", 127), strings.Repeat("a", 128), strings.Repeat("a", 129), "a\x00"}
	for c := 0; c < 256; c++ {
		ids = append(ids, string(rune(c)), "a"+string([]byte{byte(c)}), string([]byte{byte(c)})+"a")
	}
	for _, id := range ids {
		if got, want := safeContext(id), pattern.MatchString(id); got != want {
			t.Errorf("safeContext(%q) = %v, the pattern says %v", id, got, want)
		}
	}
}
