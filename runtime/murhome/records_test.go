package murhome

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/diag"
)

// sesAt returns a session id minted at t (UUIDv7 layout), n telling apart
// ids of the same millisecond.
func sesAt(t time.Time, n int) string {
	return fmt.Sprintf("ses_%012x7000800000000000%04x", t.UnixMilli(), n)
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
}

func TestHome(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	got, err := Home(env(map[string]string{"MURMUR_HOME": "/tmp/mh", "HOME": "/home/me"}))
	if err != nil || got != "/tmp/mh" {
		t.Errorf("Home(MURMUR_HOME set) = %q, %v; want /tmp/mh", got, err)
	}
	got, err = Home(env(map[string]string{"HOME": "/home/me"}))
	if err != nil || got != "/home/me/.murmur" {
		t.Errorf("Home(unset) = %q, %v; want /home/me/.murmur", got, err)
	}
}

// TestDirResolvesSymlinksSES3: the records directory names the workdir
// absolute, symlinks resolved, without its leading "/".
func TestDirResolvesSymlinksSES3(t *testing.T) {
	t.Parallel()
	root := testmur.TempDir(t)
	real := filepath.Join(root, "real", "proj")
	mkdir(t, real)
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(root, "real"), link); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	ses := sesAt(time.Now(), 1)
	got, err := SessionDir(home, filepath.Join(link, "proj"), ses)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, "records", strings.TrimPrefix(real, "/"), ses)
	if got != want {
		t.Errorf("Dir() = %q, want %q", got, want)
	}
	rt, err := RuntimeDir(filepath.Join(link, "proj"), ses)
	if err != nil || rt != filepath.Join(real, ".murmur", ses) {
		t.Errorf("RuntimeDir() = %q, %v; want %q", rt, err, filepath.Join(real, ".murmur", ses))
	}
	if _, err := SessionDir(home, filepath.Join(root, "missing"), ses); err == nil {
		t.Error("Dir(missing workdir) error = nil, want one")
	}
}

func TestSessionsNewestFirst(t *testing.T) {
	t.Parallel()
	g := t.TempDir()
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	a, b, c := sesAt(base, 1), sesAt(base.Add(time.Second), 1), sesAt(base.Add(time.Second), 2)
	for _, id := range []string{b, a, c, "ses_short", "notes"} {
		mkdir(t, filepath.Join(g, id))
	}
	os.WriteFile(filepath.Join(g, sesAt(base.Add(time.Hour), 1)), nil, 0o600) // a file, not a session
	got, err := Sessions(g)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != strings.Join([]string{c, b, a}, ",") {
		t.Errorf("Sessions() = %v, want %v", got, []string{c, b, a})
	}
}

// TestResolveCLI9 covers every address form and its refusals, with the
// exact E-TRC-002 texts.
func TestResolveCLI9(t *testing.T) {
	t.Parallel()
	g := t.TempDir()
	s1 := "ses_019a00000000" + "70008000" + "00000000aaa1"
	s2 := "ses_019a00000001" + "70008000" + "00000000baa1"
	s3 := "ses_019a00000002" + "70008000" + "00000000c3e4"
	for _, id := range []string{s1, s2, s3} {
		mkdir(t, filepath.Join(g, id))
		os.WriteFile(filepath.Join(g, id, TraceFile), nil, 0o600)
	}
	trace := func(id string) string { return filepath.Join(g, id, TraceFile) }
	hint := "\n  hint: name a session by id, suffix, @N or path\n"
	cases := []struct {
		arg, want, err string
	}{
		{"", trace(s3), ""},
		{"@1", trace(s3), ""},
		{"@3", trace(s1), ""},
		{"@4", "", "error[E-TRC-002]: no session matches '@4'" + hint},
		{"@0", "", "error[E-TRC-002]: no session matches '@0'" + hint},
		{"@01", "", "error[E-TRC-002]: no session matches '@01'" + hint},
		{s2, trace(s2), ""},
		{"C3E4", trace(s3), ""},
		{"0c3e4", trace(s3), ""},
		{"baa1", trace(s2), ""},
		{"aa1", "", "error[E-TRC-002]: no session matches 'aa1'" + hint},
		{"AAA1", trace(s1), ""},
		{"a1", "", "error[E-TRC-002]: no session matches 'a1'" + hint},
		{"ffff", "", "error[E-TRC-002]: no session matches 'ffff'" + hint},
		{"frm_019a0000000070008000000000aaa1", "", "error[E-TRC-002]: 'frm_019a0000000070008000000000aaa1' is a formation id; this build lists member sessions only" + hint},
		{filepath.Join(g, s1), trace(s1), ""},
		{trace(s2), trace(s2), ""},
		{filepath.Join(g, "nope", "trace.jsonl"), "", "error[E-IO-001]: " + filepath.Join(g, "nope", "trace.jsonl") + ": no such file or directory\n  hint: check the path\n"},
	}
	for _, c := range cases {
		got, err := Resolve(g, c.arg)
		if c.err != "" {
			d, ok := diag.As(err)
			if !ok || d.Render() != c.err {
				t.Errorf("Resolve(%q) error = %v, want %q", c.arg, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", c.arg, got, err, c.want)
		}
	}
}

func TestResolveAmbiguousCLI9(t *testing.T) {
	t.Parallel()
	g := t.TempDir()
	s1 := "ses_019a00000000" + "70008000" + "00000000abcd"
	s2 := "ses_019a00000001" + "70008000" + "00000001abcd"
	s3 := "ses_019a00000002" + "70008000" + "00000000ffff"
	for _, id := range []string{s1, s2, s3} {
		mkdir(t, filepath.Join(g, id))
	}
	_, err := Resolve(g, "ABCD")
	want := "error[E-TRC-002]: 'ABCD' matches 2 sessions: " + s2 + ", " + s1 + "\n  hint: name a session by id, suffix, @N or path\n"
	if d, ok := diag.As(err); !ok || d.Render() != want {
		t.Errorf("Resolve(ABCD) error = %v, want %q", err, want)
	}
}

func TestResolveEmptyGroupCLI9(t *testing.T) {
	t.Parallel()
	g := filepath.Join(t.TempDir(), "records", "home", "me")
	want := "error[E-TRC-002]: no session in " + g + "\n  hint: name a session by id, suffix, @N or path\n"
	for _, arg := range []string{"", "@1", "abcd"} {
		_, err := Resolve(g, arg)
		if d, ok := diag.As(err); !ok || d.Render() != want {
			t.Errorf("Resolve(%q) error = %v, want %q", arg, err, want)
		}
	}
}
