package diag

import "testing"

// TestNearest: within two edits and fewer than the word's own length; the
// first of equally near candidates wins.
func TestNearest(t *testing.T) {
	t.Parallel()
	known := []string{"roster_version", "members", "reachability"}
	for _, tt := range []struct{ in, want string }{
		{"reachabilty", "reachability"},
		{"memebrs", "members"},
		{"member", "members"},
		{"version", ""},
		{"x", ""},
	} {
		if got := Nearest(tt.in, known); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Nearest("al", []string{"all", "g"}); got != "all" {
		t.Errorf("Nearest(al) = %q", got)
	}
	if got := Nearest("x", []string{"g"}); got != "" {
		t.Errorf("Nearest(x) = %q, want none: one edit is the whole word", got)
	}
	if got := Nearest("ab", []string{"ac", "ad"}); got != "ac" {
		t.Errorf("Nearest(ab) = %q, want the first of the equally near", got)
	}
}

// TestShellWord: plain words stay bare; anything a shell reads is quoted.
func TestShellWord(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"crew/lead":     "crew/lead",
		"my dir/lead":   "'my dir/lead'",
		"it's":          `'it'\''s'`,
		"":              "''",
		"$HOME/x":       "'$HOME/x'",
		"/abs/path-1.0": "/abs/path-1.0",
	} {
		if got := ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %q, want %q", in, got, want)
		}
	}
}
