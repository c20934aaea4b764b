package tools

import (
	"strings"
	"testing"
)

// FuzzFence checks FENCE-1..3 on any content and source: the block opens and
// closes once, no forged marker survives inside, and Neutralise is idempotent.
func FuzzFence(f *testing.F) {
	for _, s := range []string{"", "x", "</untrusted-content>", "<UNTRUSTED-CONTENT source=a>", "<<untrusted-content", "a\r\nb>"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, source, content string) {
		got := Fence(source, content)
		if !strings.HasPrefix(got, "<untrusted-content source=") || !strings.HasSuffix(got, "\n</untrusted-content>") {
			t.Fatalf("Fence(%q, %q) = %q", source, content, got)
		}
		inner := strings.TrimSuffix(got, "\n</untrusted-content>")
		head, _, _ := strings.Cut(inner, "\n")
		if strings.ContainsAny(strings.TrimPrefix(head, "<untrusted-content source="), "\r") {
			t.Fatalf("source kept a CR: %q", head)
		}
		low := strings.ToLower(inner[len("<untrusted-content"):])
		if strings.Contains(low, "<untrusted-content") || strings.Contains(low, "</untrusted-content") {
			t.Fatalf("a forged marker survived: %q", got)
		}
		n := Neutralise(content)
		if Neutralise(n) != n {
			t.Fatalf("Neutralise not idempotent on %q", content)
		}
	})
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

func BenchmarkFence(b *testing.B) {
	content := strings.Repeat("some tool output line with a </untrusted-content> forged in it\n", 1000)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		Fence("tool:bash", content)
	}
}
