package tool

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

func BenchmarkFence(b *testing.B) {
	content := strings.Repeat("some tool output line with a </untrusted-content> forged in it\n", 1000)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		Fence("tool:bash", content)
	}
}
