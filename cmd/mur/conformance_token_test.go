package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// runConformanceWith runs the real binary `mur conformance <args>` with extra
// environment variables and stdin.
func runConformanceWith(t *testing.T, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(murBin, append([]string{"conformance"}, args...)...)
	cmd.Env = append(append(os.Environ(), "MURMUR_HOME="+t.TempDir()), env...)
	cmd.Stdin = strings.NewReader(stdin)
	return testmur.Exec(t, cmd)
}

// TestConformanceTokenSources_SEC: a token reaches `mur conformance` off the
// command line — from a file (--token door=@<file>), from stdin (@-) or from
// MURMUR_CONFORMANCE_TOKEN_<KIND> — and the checks it turns on pass, with
// nothing on stderr; --token wins over the variable. A token on the command
// line still works, with one W-SEC-033 line: argv is readable by every local
// user.
func TestConformanceTokenSources_SEC(t *testing.T) {
	t.Parallel()
	url, token := serveTestDoor(t)
	file := filepath.Join(t.TempDir(), "door.tok")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const warn = "warning[W-SEC-033]: --token put the door token on the command line, where other local users can read it (ps, /proc/<pid>/cmdline); give --token door=@<file> or MURMUR_CONFORMANCE_TOKEN_DOOR instead\n"
	cases := []struct {
		name   string
		env    []string
		stdin  string
		args   []string
		stderr string
	}{
		{"a file", nil, "", []string{"--token", "door=@" + file}, ""},
		{"stdin, the kind left out", nil, token + "\n", []string{"--token", "@-"}, ""},
		{"the environment", []string{"MURMUR_CONFORMANCE_TOKEN_DOOR=" + token}, "", nil, ""},
		{"--token wins over the environment", []string{"MURMUR_CONFORMANCE_TOKEN_DOOR=not-the-token"}, "", []string{"--token", "door=@" + file}, ""},
		{"the command line, warned", nil, "", []string{"--token", token}, warn},
	}
	for _, c := range cases {
		out, errOut, code := runConformanceWith(t, c.env, c.stdin, append([]string{url}, c.args...)...)
		if code != 0 || errOut != c.stderr || !strings.Contains(out, "PASS auth.missing  ") || !strings.Contains(out, "PASS auth.invalid  ") {
			t.Errorf("%s: exit %d, stderr %q (want %q), stdout:\n%s", c.name, code, errOut, c.stderr, out)
		}
		if strings.Contains(out+errOut, token) {
			t.Errorf("%s: the token reached mur conformance's output", c.name)
		}
	}
}

// TestConformanceTokenSourceErrors_SEC: a token file that cannot be read is
// E-IO-001; one holding no token or more than one (a `mur token` line), and
// two kinds reading stdin, are usage errors naming the file, never a token.
func TestConformanceTokenSourceErrors_SEC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty, line := filepath.Join(dir, "empty"), filepath.Join(dir, "line")
	os.WriteFile(empty, []byte("\n"), 0o600)
	os.WriteFile(line, []byte("operator mdt_secret\n"), 0o600)
	missing := filepath.Join(dir, "missing")
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--token", "door=@" + missing}, 1, "error[E-IO-001]: " + missing + ": no such file or directory\n  hint: check the path\n"},
		{[]string{"--token", "scoped=@" + empty}, 2, "error: --token scoped=@" + empty + ": it holds no token\nrun 'mur conformance --help' for usage\n"},
		{[]string{"--token", "member=@" + line}, 2, "error: --token member=@" + line + ": it holds more than a token (mur token prints \"<name> <token>\": keep only the token)\nrun 'mur conformance --help' for usage\n"},
		{[]string{"--token", "door=@-", "--token", "member=@-"}, 2, "error: --token door=@- and --token member=@- both read stdin: give one of them as a file\nrun 'mur conformance --help' for usage\n"},
		{[]string{"--token", "door=@"}, 2, "error: --token door=@ names no file: write --token door=@<file>, or @- for stdin\nrun 'mur conformance --help' for usage\n"},
	}
	for _, c := range cases {
		out, errOut, code := runConformanceWith(t, nil, "mdt_secret\n", append([]string{"http://127.0.0.1:1"}, c.args...)...)
		if code != c.code || out != "" || errOut != c.stderr {
			t.Errorf("mur conformance %q = %d, %q, %q; want %d and %q", c.args, code, out, errOut, c.code, c.stderr)
		}
	}
}
