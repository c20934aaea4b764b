package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/runtime/diag"
)

// FuzzParse: whatever the bytes, Parse returns a manifest or a coded
// diagnostic, never panics (STYLE.md §9).
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "fuzz-seed-*.yaml"))
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(head))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("<<: {name: a}\nversion: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := Parse(file, data, env("K", "v"))
		if err == nil {
			if m == nil || m.Name == "" || m.Inference == nil {
				t.Fatalf("Parse() = %+v, nil: a manifest without name or inference", m)
			}
			return
		}
		d, ok := diag.As(err)
		if !ok || d.Code == "" || d.Msg == "" {
			t.Fatalf("Parse() error = %v (%T), want a coded diagnostic", err, err)
		}
	})
}

// FuzzParseAllowEntry: an entry parses, or fails with a reason; a parsed
// entry never panics Allows.
func FuzzParseAllowEntry(f *testing.F) {
	for _, s := range []string{"localhost", "api.example.com:8443", "https://api.github.com", "[::1]:9000", "ftp://x", "a/b?c#d"} {
		f.Add(s, "http://127.0.0.1:41234/x")
	}
	f.Fuzz(func(t *testing.T, entry, url string) {
		e, err := ParseAllowEntry(entry)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty E-CAP-001 reason")
			}
			return
		}
		AllowList{e}.Allows(url)
	})
}

// FuzzParseDotEnv: .env bytes parse, or fail naming a line; never panic.
func FuzzParseDotEnv(f *testing.F) {
	f.Add([]byte("A=1\nexport B='x y'\nC=\"a\\nb\" # c\n"))
	f.Add([]byte("# only a comment\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		vars, err := ParseDotEnv(data)
		if err == nil && vars == nil {
			t.Fatal("ParseDotEnv() = nil, nil")
		}
	})
}
