package proc

import (
	"strings"
	"testing"
)

func TestSplitWords_LOOP11(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{`ls -1`, []string{"ls", "-1"}, false},
		{`grep "a b" 'c d' e\ f`, []string{"grep", "a b", "c d", "e f"}, false},
		{`echo "x\"y" '$HOME'`, []string{"echo", `x"y`, "$HOME"}, false},
		{`echo ""`, []string{"echo", ""}, false},
		{`echo 'open`, nil, true},
	}
	for _, c := range cases {
		got, err := SplitWords(c.in)
		if (err != nil) != c.err || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if a, _ := Argv("bash", "ls -1 | wc -l"); strings.Join(a, "|") != "bash|-c|ls -1 | wc -l" {
		t.Errorf("Argv(bash) = %q", a)
	}
	if a, _ := Argv("git", "status --short"); strings.Join(a, "|") != "git|status|--short" {
		t.Errorf("Argv(git) = %q", a)
	}
	if a, _ := Argv("git", "git status"); strings.Join(a, "|") != "git|status" {
		t.Errorf("Argv(git, full line) = %q", a)
	}
}

// FuzzSplitWords: a value or an error, never a panic; a plain word list
// round-trips.
func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{"ls -1", `a "b c" 'd'`, `x\ y`, `"unterminated`, `'`, `\`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitWords(s)
		if err != nil {
			return
		}
		blanks := func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' } // POSIX IFS
		if !strings.ContainsAny(s, "'\"\\") && strings.Join(words, "|") != strings.Join(strings.FieldsFunc(s, blanks), "|") {
			t.Fatalf("SplitWords(%q) = %q", s, words)
		}
	})
}
