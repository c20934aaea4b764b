package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/internal/diag"
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
