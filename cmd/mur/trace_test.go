package main

import (
	"os"
	"path/filepath"
	"testing"
)

const traceFixtures = "../../runtime/traceview/testdata"

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(traceFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTraceShowAddressesCLI9 runs the real binary against a records group of
// three sessions, naming them every way CLI-9 allows.
func TestTraceShowAddressesCLI9(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	s1 := sesID("019a10000000", "1")
	s2 := sesID("019a10000001", "e0abc")
	s3 := sesID("019a10000002", "f0abc")
	e.addTrace(t, s1, filepath.Join(traceFixtures, "single.jsonl"))
	dir2 := e.addTrace(t, s2, filepath.Join(traceFixtures, "multi.jsonl"))
	e.addTrace(t, s3, filepath.Join(traceFixtures, "malformed.jsonl"))
	single, multi := readFixture(t, "single.golden"), readFixture(t, "multi.golden")

	cases := []struct {
		args []string
		want string
	}{
		{[]string{"trace", "show", "@3"}, single},
		{[]string{"trace", "show", "@2"}, multi},
		{[]string{"trace", "show", s1}, single},
		{[]string{"trace", "show", "E0ABC"}, multi},
		{[]string{"trace", "show", dir2}, multi},
		{[]string{"trace", "show", filepath.Join(dir2, "trace.jsonl")}, multi},
		{[]string{"trace", "show", "@2", "--workdir", e.workdir}, multi},
		{[]string{"trace", "show", "--workdir=" + e.workdir, "@3"}, single},
	}
	for _, c := range cases {
		out, errOut, code := e.run(t, c.args...)
		if code != 0 || out != c.want || errOut != "" {
			t.Errorf("mur %v = %d, stdout %q, stderr %q; want 0 and the golden summary", c.args, code, out, errOut)
		}
	}

	hint := "  hint: name a session by id, suffix, @N or path\n"
	group := filepath.Dir(dir2)
	fails := []struct {
		args   []string
		stderr string
	}{
		{[]string{"trace", "show"}, "error[E-TRC-001]: " + filepath.Join(group, s3, "trace.jsonl") + ":2: malformed JSON: unexpected end of JSON input\n"},
		{[]string{"trace", "show", "abc"}, "error[E-TRC-002]: no session matches 'abc'\n" + hint},
		{[]string{"trace", "show", "@4"}, "error[E-TRC-002]: no session matches '@4'\n" + hint},
		{[]string{"trace", "show", "0abc"}, "error[E-TRC-002]: '0abc' matches 2 sessions: " + s3 + ", " + s2 + "\n" + hint},
		{[]string{"trace", "show", "frm_019a1000000070008000000000000001"}, "error[E-TRC-002]: no member session of formation frm_019a1000000070008000000000000001 is found under " + e.home +
			"\n  hint: mur ps lists the formations running here; an ended one's sessions stay until retention removes them\n"},
	}
	for _, c := range fails {
		out, errOut, code := e.run(t, c.args...)
		if code != 1 || out != "" || errOut != c.stderr {
			t.Errorf("mur %v = %d, stdout %q, stderr %q; want 1 and %q", c.args, code, out, errOut, c.stderr)
		}
	}
}

func TestTraceShowEmptyGroupCLI9(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	group := filepath.Join(e.home, "records", e.workdir[1:])
	_, errOut, code := e.run(t, "trace", "show")
	want := "error[E-TRC-002]: no session in " + group + "\n  hint: name a session by id, suffix, @N or path\n"
	if code != 1 || errOut != want {
		t.Errorf("mur trace show = %d, %q; want 1, %q", code, errOut, want)
	}
	missing := filepath.Join(e.workdir, "nope")
	_, errOut, code = e.run(t, "trace", "show", "--workdir", missing)
	want = "error[E-IO-001]: " + missing + ": no such file or directory\n  hint: check the path\n"
	if code != 1 || errOut != want {
		t.Errorf("mur trace show --workdir missing = %d, %q; want 1, %q", code, errOut, want)
	}
}

// TestTraceUsage: --help on stdout exit 0; usage errors exit 2 (README
// "Output contract").
func TestTraceUsage(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	for _, args := range [][]string{{"trace", "--help"}, {"trace", "show", "-h"}} {
		out, errOut, code := e.run(t, args...)
		if code != 0 || errOut != "" || out[:len("Usage: mur trace show")] != "Usage: mur trace show" {
			t.Errorf("mur %v = %d, %q, %q; want usage on stdout, exit 0", args, code, out, errOut)
		}
	}
	usage := []struct {
		args []string
		want string
	}{
		{[]string{"trace"}, "error: missing subcommand: mur trace show\nrun 'mur trace --help' for usage\n"},
		{[]string{"trace", "list"}, "error: unknown subcommand 'list'\nrun 'mur trace --help' for usage\n"},
		{[]string{"trace", "show", "@1", "@2"}, "error: unexpected argument '@2'\nrun 'mur trace show --help' for usage\n"},
		{[]string{"trace", "show", "--bogus"}, "error: unknown flag --bogus\nrun 'mur trace show --help' for usage\n"},
	}
	for _, c := range usage {
		out, errOut, code := e.run(t, c.args...)
		if code != 2 || out != "" || errOut != c.want {
			t.Errorf("mur %v = %d, %q, %q; want 2, %q", c.args, code, out, errOut, c.want)
		}
	}
}
