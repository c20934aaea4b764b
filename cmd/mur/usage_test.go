package main

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
)

// runBuffered runs mur in-process with args and returns its outputs.
func runBuffered(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = runMain(args, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	return out.String(), errb.String(), code
}

// TestDidYouMean pins the usage errors for unknown commands, subcommands and
// flags: each names the nearest known one when one is close, and exits 2
// (README.md "Output contract": usage errors).
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, args := range [][]string{
		{"isntall"},
		{"frobnicate"},
		{"list", "--al"},
		{"list", "-al"},
		{"list", "--x"},
		{"run", "--tsak", "x"},
		{"run", "--roster", ".", "--tsak", "x"},
		{"run", "--roster", "--jsn"},
		{"stop", "--timout", "3", "@1"},
		{"trace", "shwo"},
		{"trace", "show", "--workdri", "x"},
		{"doctor", "--bnid", "x"},
		{"new", "x", "--driver", "olama"},
		{"new", "--roster", "crew", "--driver", "antropic"},
		{"help", "lsit"},
		{"help", "nothing-like-it"},
	} {
		out, errOut, code := runBuffered(args...)
		fmt.Fprintf(&b, "$ mur %s\nexit %d\nstdout: %q\n%s\n", strings.Join(args, " "), code, out, errOut)
		if code != 2 || out != "" {
			t.Errorf("mur %v = %d, stdout %q; want a usage error", args, code, out)
		}
	}
	golden.Check(t, "usage-did-you-mean", b.String())
}

// TestHelpCommand: `mur help <command> [<sub>]` prints what `mur <command>
// [<sub>] --help` prints, on stdout, exit 0; `mur help` alone is the top
// usage.
func TestHelpCommand(t *testing.T) {
	t.Parallel()
	for _, c := range commands {
		want, _, wantCode := runBuffered(c.name, "--help")
		got, errOut, code := runBuffered("help", c.name)
		if code != 0 || wantCode != 0 || got != want || got == "" || errOut != "" {
			t.Errorf("mur help %s = %d %q %q; mur %s --help = %d %q", c.name, code, got, errOut, c.name, wantCode, want)
		}
		if !strings.HasPrefix(got, "Usage: mur "+c.name) {
			t.Errorf("mur help %s does not open with its usage line:\n%s", c.name, got)
		}
	}
	top, _, code := runBuffered("help")
	if code != 0 || !strings.HasPrefix(top, "mur runs A2A capsules") {
		t.Errorf("mur help = %d %q", code, top)
	}
	show, _, code := runBuffered("help", "trace", "show")
	if want, _, _ := runBuffered("trace", "show", "--help"); code != 0 || show != want {
		t.Errorf("mur help trace show = %d %q, want %q", code, show, want)
	}
}

// TestHelpCitesNoSpecIDs: no --help text quotes a requirement ID or a spec
// file; a user reads docs/ and the diagnostic codes (E-…, W-…) instead.
func TestHelpCitesNoSpecIDs(t *testing.T) {
	t.Parallel()
	helps := helpArgs()
	id := regexp.MustCompile(`(?:\b[EW]-)?\b[A-Z]{2,6}-[0-9]+\b`)
	specFile := regexp.MustCompile(`(?:docs/)?\b(?:capsule|door|formations|tools|process|input|README)\.md\b`)
	for _, args := range helps {
		out, errOut, code := runBuffered(args...)
		if code != 0 || out == "" {
			t.Errorf("mur %s = %d, %q, %q", strings.Join(args, " "), code, out, errOut)
			continue
		}
		for _, m := range id.FindAllString(out, -1) {
			if !strings.HasPrefix(m, "E-") && !strings.HasPrefix(m, "W-") {
				t.Errorf("mur %s cites %s", strings.Join(args, " "), m)
			}
		}
		for _, m := range specFile.FindAllString(out, -1) {
			if !strings.HasPrefix(m, "docs/") {
				t.Errorf("mur %s cites the spec file %s", strings.Join(args, " "), m)
			}
		}
	}
}

// helpArgs are the argument lists of every --help text: mur's, each
// command's, and the subcommands with a usage of their own.
func helpArgs() [][]string {
	helps := [][]string{{"--help"}, {"run", "--roster", "--help"}, {"trace", "show", "--help"}, {"token", "mint", "--help"}}
	for _, c := range commands {
		helps = append(helps, []string{c.name, "--help"})
	}
	return helps
}

// TestHelpPlaceholders keeps the placeholders of every --help text one
// spelling for one thing — <session> for a session, <frm_id> for a
// formation, <name>, <n>, <version>, <port> — and their inventory (each
// placeholder and the commands whose help uses it) in a golden.
func TestHelpPlaceholders(t *testing.T) {
	t.Parallel()
	synonyms := map[string]string{"<ses_id>": "<session>", "<ses>": "<session>", "<session_id>": "<session>",
		"<formation>": "<frm_id>", "<frm>": "<frm_id>", "<NAME>": "<name>", "<N>": "<n>", "<v>": "<version>", "<member_name>": "<member>"}
	ph := regexp.MustCompile(`<[A-Za-z_][A-Za-z0-9_.|-]*>`)
	users := map[string][]string{}
	for _, args := range helpArgs() {
		out, _, _ := runBuffered(args...)
		cmd := strings.Join(args[:len(args)-1], " ")
		if cmd == "" {
			cmd = "mur"
		}
		seen := map[string]bool{}
		for _, m := range ph.FindAllString(out, -1) {
			if want, ok := synonyms[m]; ok {
				t.Errorf("mur %s --help writes %s; this CLI's one spelling is %s", cmd, m, want)
			}
			if !seen[m] {
				seen[m] = true
				users[m] = append(users[m], cmd)
			}
		}
	}
	var names []string
	for m := range users {
		names = append(names, m)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, m := range names {
		fmt.Fprintf(&b, "%-16s %s\n", m, strings.Join(users[m], ", "))
	}
	golden.Check(t, "help-placeholders", b.String())
}
