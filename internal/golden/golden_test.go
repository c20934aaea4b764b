package golden

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, strings.TrimSpace(format))
}

// Fatal stops the goroutine, as testing's Fatal does.
func (r *recorder) Fatal(args ...any) {
	r.fatal = true
	runtime.Goexit()
}

// check runs Check on a goroutine of its own, so that Fatal can end it.
func check[T string | []byte](r *recorder, name string, got T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(r, name, got)
	}()
	<-done
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "testdata", "x.golden"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)

	tests := []struct {
		name      string
		file      string
		got       string
		wantError bool
		wantFatal bool
	}{
		{"equal", "x", "a\nb\n", false, false},
		{"different line", "x", "a\nc\n", true, false},
		{"missing newline", "x", "a\nb", true, false},
		{"missing file", "nope", "a", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			check(r, tt.file, tt.got)
			if (len(r.errors) > 0) != tt.wantError || r.fatal != tt.wantFatal {
				t.Errorf("Check(%q, %q): errors %q, fatal %v; want error %v, fatal %v", tt.file, tt.got, r.errors, r.fatal, tt.wantError, tt.wantFatal)
			}
			rb := &recorder{TB: t}
			check(rb, tt.file, []byte(tt.got))
			if len(rb.errors) != len(r.errors) || rb.fatal != r.fatal {
				t.Errorf("Check([]byte) = %q %v, Check(string) = %q %v", rb.errors, rb.fatal, r.errors, r.fatal)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	*update = true
	t.Cleanup(func() { *update = false })
	r := &recorder{TB: t}
	check(r, "new", "fresh\n")
	got, err := os.ReadFile(filepath.Join("testdata", "new.golden"))
	if err != nil || string(got) != "fresh\n" || len(r.errors) > 0 || r.fatal || !Update() {
		t.Errorf("after -update: file %q, %v; errors %q, fatal %v", got, err, r.errors, r.fatal)
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want, first string }{
		{"a\nb\n", "a\nc\n", "first difference at line 2:\n  got  \"b\\n\"\n  want \"c\\n\"\n"},
		{"a\nb", "a\nb\n", "first difference at line 2:\n  got  \"b\"\n  want \"b\\n\"\n"},
		{"a\n", "a\nb\n", "first difference at line 2:\n  got  \"\"\n  want \"b\\n\"\n"},
		{"", "x", "first difference at line 1:\n  got  \"\"\n  want \"x\"\n"},
	}
	for _, tt := range tests {
		d := Diff(tt.got, tt.want)
		if !strings.HasPrefix(d, tt.first) || !strings.HasSuffix(d, "got:\n"+tt.got+"\nwant:\n"+tt.want) {
			t.Errorf("Diff(%q, %q) =\n%s\nwant it to start with\n%s", tt.got, tt.want, d, tt.first)
		}
	}
}
