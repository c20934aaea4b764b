package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// The tests here run the command a diagnostic's hint names, from the
// directory the failing command ran in, and check that it succeeds or that
// the failing command then gets past the fault (hints that lead
// somewhere).

// hintLine returns the text after "  hint: " in stderr.
func hintLine(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^  hint: (.*)$`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr has no hint line:\n%s", stderr)
	}
	return m[1]
}

// runHinted runs one "mur …" command as a hint spells it (words split on
// blanks; no quoting is needed in these tests) in dir and returns its
// outputs.
func (e *artEnv) runHinted(t *testing.T, dir, command string) (string, string, int) {
	t.Helper()
	words := strings.Fields(command)
	if len(words) < 2 || words[0] != "mur" {
		t.Fatalf("hint command %q is not a mur command", command)
	}
	return e.mur(t, dir, words[1:]...)
}

// TestHintNotInstalled: E-ROS-007 names every member not installed and
// hints the exact mur install commands; run from where the launch ran, they
// install the members and the launch then runs (ADM-1 6a, BIND-1).
func TestHintNotInstalled(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, cwd, roster, want string
	}{
		// Outside any project the commands install into the global store.
		{"global", "", "crew", "run mur install -g crew/lead && mur install -g crew/worker"},
		// In the formation's project they install into its project store.
		{"project", "crew", ".", "run mur install lead && mur install worker"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newArtEnv(t)
			if _, stderr, code := e.mur(t, "", "new", "--roster", "crew"); code != 0 {
				t.Fatalf("mur new --roster: %d %s", code, stderr)
			}
			_, stderr, code := e.mur(t, tt.cwd, "run", "--roster", tt.roster, "--task", "hello")
			wantMsg := "error[E-ROS-007]: roster.yaml: 2 members are installed in neither store\n" +
				"  member 'lead' (crew-lead@0.1.0): no version of crew-lead is installed\n" +
				"  member 'worker' (crew-worker@0.1.0): no version of crew-worker is installed\n"
			if code != 1 || !strings.HasPrefix(stderr, wantMsg) {
				t.Fatalf("launch = %d\n%s\nwant\n%s", code, stderr, wantMsg)
			}
			hint := hintLine(t, stderr)
			if hint != tt.want {
				t.Fatalf("hint = %q, want %q", hint, tt.want)
			}
			for _, c := range strings.Split(strings.TrimPrefix(hint, "run "), " && ") {
				if out, stderr, code := e.runHinted(t, tt.cwd, c); code != 0 || !strings.HasPrefix(out, "installed ") {
					t.Fatalf("%s = %d\n%s%s", c, code, out, stderr)
				}
			}
			out, stderr, code := e.mur(t, tt.cwd, "run", "--roster", tt.roster, "--task", "hello")
			if code != 0 || !strings.Contains(out, "worker did: hello\n") || !strings.HasSuffix(out, "status:  ok\n") {
				t.Errorf("launch after the hint = %d\n%s%s", code, out, stderr)
			}
		})
	}
}

// TestHintCredentialUnset: an unset credential's hint says to export it or
// add it to .env in the project directory; either way doctor's credential
// check then passes (DRV-3, SES-10).
func TestHintCredentialUnset(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{"cap/murmur.yaml": "name: cap\nversion: \"0.1.0\"\ninference:\n  driver:\n    kind: openai\n    model: m\n    endpoint: http://127.0.0.1:9/v1\n    api_key: ${MUR_HINT_KEY}\n"})
	_, stderr, code := e.mur(t, "cap", "run", "--task", "x")
	want := "error[E-MAN-003]: murmur.yaml:8:14: inference.driver.api_key: the environment variable MUR_HINT_KEY is not set\n" +
		"  hint: export MUR_HINT_KEY=<your key> before running mur, or add the line MUR_HINT_KEY=<your key> to .env in the project directory (beside murmur.yaml, or a formation's roster.yaml)\n"
	if code != 1 || stderr != want {
		t.Fatalf("mur run = %d\n%q\nwant\n%q", code, stderr, want)
	}
	// The .env way.
	e.write(t, map[string]string{"cap/.env": "MUR_HINT_KEY=sk-test\n"})
	out, stderr, code := e.mur(t, "cap", "doctor")
	if code != 0 || !strings.Contains(out, "✓ credential primary (MUR_HINT_KEY)\n") {
		t.Errorf("doctor after adding .env = %d\n%s%s", code, out, stderr)
	}
	// The export way.
	if err := os.Remove(e.root + "/cap/.env"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(murBin, "doctor")
	cmd.Dir = filepath.Join(e.root, "cap")
	cmd.Env = append(os.Environ(), "MURMUR_HOME="+e.home, "MUR_HINT_KEY=sk-test")
	out, _, code = testmur.Exec(t, cmd)
	if code != 0 || !strings.Contains(out, "✓ credential primary (MUR_HINT_KEY)\n") {
		t.Errorf("doctor with MUR_HINT_KEY exported = %d\n%s", code, out)
	}
}

// TestHintTaskEnded: E-RUN-040's hint names a mur trace show command that
// works from the directory mur run ran in, also when the workdir is another
// (CLI-9).
func TestHintTaskEnded(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{
		"proj/cap/murmur.yaml": "name: cap\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n",
		"proj/cap/script.yaml": "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - error: \"the model is down\"\n",
	})
	for _, tt := range []struct{ cwd, capsule, flag string }{
		{"proj", "cap", " --workdir cap"},
		{"proj/cap", ".", ""},
		{"proj/cap", "../../proj/cap", ""},
	} {
		_, stderr, code := e.mur(t, tt.cwd, "run", "--capsule", tt.capsule, "--task", "x")
		if code != 1 || !strings.HasPrefix(stderr, "error[E-RUN-040]: the task ended failed: the model is down\n") {
			t.Fatalf("mur run in %s = %d\n%s", tt.cwd, code, stderr)
		}
		m := regexp.MustCompile("`(mur trace show (ses_[0-9a-f]{32})" + regexp.QuoteMeta(tt.flag) + ")` shows").FindStringSubmatch(hintLine(t, stderr))
		if m == nil {
			t.Fatalf("in %s the hint names no mur trace show …%s command:\n%s", tt.cwd, tt.flag, stderr)
		}
		out, stderr, code := e.runHinted(t, tt.cwd, m[1])
		if code != 0 || !strings.Contains(out, "session:    "+m[2]+"\n") || !strings.Contains(out, "status:     failed\n") {
			t.Errorf("%s in %s = %d\n%s%s", m[1], tt.cwd, code, out, stderr)
		}
	}
}

// TestHintNoSession: E-RUN-022's hint names mur ps, which runs (CLI-12).
func TestHintNoSession(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	_, stderr, code := e.mur(t, "", "stop", "@1")
	if code != 1 || !strings.HasPrefix(stderr, "error[E-RUN-022]: ") {
		t.Fatalf("mur stop @1 = %d %s", code, stderr)
	}
	hint := hintLine(t, stderr)
	cmd, _, ok := strings.Cut(hint, " lists")
	if !ok {
		t.Fatalf("hint = %q", hint)
	}
	if out, stderr, code := e.runHinted(t, "", cmd); code != 0 || out != "no running capsules\n" {
		t.Errorf("%s = %d %q %q", cmd, code, out, stderr)
	}
}

// TestHintStoreCommands: the store diagnostics' hints name mur install (or
// mur list --all); run as they say, in the project, the next mur run gets
// past the fault (STORE-5, STORE-6, CLI-6).
func TestHintStoreCommands(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	sum := e.tool(t, "src/edit", "tool-edit", "1.0.0", "one")
	e.write(t, map[string]string{
		"proj/murmur.yaml": "name: app\nversion: 1.0.0\nartifacts:\n  - {name: tool-edit, version: 1.0.0}\ninference: {driver: {kind: scripted, script: script.yaml}}\n",
		"proj/script.yaml": doctorScript,
	})
	runs := func(what string) {
		t.Helper()
		if out, errOut, code := e.mur(t, "proj", "run", "--task", "x"); code != 0 {
			t.Errorf("%s: mur run after the hint = %d\n%s%s", what, code, out, errOut)
		}
	}
	follow := func(what, code, want string, before func()) {
		t.Helper()
		if before != nil {
			before()
		}
		_, stderr, exit := e.mur(t, "proj", "run", "--task", "x")
		if exit != 1 || !strings.HasPrefix(stderr, "error["+code+"]") {
			t.Fatalf("%s: mur run = %d %s, want %s", what, exit, stderr, code)
		}
		if hint := hintLine(t, stderr); hint != want {
			t.Fatalf("%s: hint = %q, want %q", what, hint, want)
		}
	}
	lock := filepath.Join(e.root, "proj", "murmur.lock")

	// E-RUN-008: the artifact is in neither store. mur install moves on to
	// E-REG-001, which names the store to fill (STORE-6's hint is exact).
	follow("E-RUN-008", "E-RUN-008", "run `mur install` to install all manifest dependencies", nil)
	_, errOut, code := e.runHinted(t, "proj", "mur install")
	if code != 1 || !strings.HasPrefix(errOut, "error[E-REG-001]: not in the global store: tool-edit@1.0.0\n") {
		t.Fatalf("mur install = %d %s, want E-REG-001 naming what is missing", code, errOut)
	}
	if hint := hintLine(t, errOut); hint != "install it with mur install -g <dir>" {
		t.Fatalf("E-REG-001 hint = %q", hint)
	}
	if _, errOut, code := e.runHinted(t, "proj", "mur install -g ../src/edit"); code != 0 {
		t.Fatalf("mur install -g = %d %s", code, errOut)
	}
	runs("E-RUN-008")

	// E-RUN-003, no entry: the lock lost the artifact's pin.
	follow("E-RUN-003 no entry", "E-RUN-003", "run mur install", func() {
		e.write(t, map[string]string{"proj/murmur.lock": "lock_version: 2\nartifacts: []\n"})
	})
	if _, errOut, code := e.runHinted(t, "proj", "mur install"); code != 0 {
		t.Fatalf("mur install = %d %s", code, errOut)
	}
	runs("E-RUN-003 no entry")

	// E-RUN-003, another lock_version: moved aside, mur install writes one.
	follow("E-RUN-003 version", "E-RUN-003", "move murmur.lock aside, then run mur install: it writes a lock this mur reads", func() {
		e.write(t, map[string]string{"proj/murmur.lock": "lock_version: 9\nartifacts: []\n"})
	})
	if err := os.Rename(lock, lock+".old"); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := e.runHinted(t, "proj", "mur install"); code != 0 {
		t.Fatalf("mur install = %d %s", code, errOut)
	}
	runs("E-RUN-003 version")

	// E-REG-002: the project store's copy was changed on disk.
	follow("E-REG-002", "E-REG-002", "reinstall it with mur install", func() {
		e.write(t, map[string]string{"proj/.murmur/artifacts/tool-edit/1.0.0/tree/run*": "#!/bin/sh\necho tampered\n"})
	})
	if _, errOut, code := e.runHinted(t, "proj", "mur install"); code != 0 {
		t.Fatalf("mur install = %d %s", code, errOut)
	}
	runs("E-REG-002")
	if data, _ := os.ReadFile(lock); !strings.Contains(string(data), sum) {
		t.Errorf("murmur.lock after the hints =\n%s\nwant the pin %s", data, sum)
	}

	// E-ROS-001's capsule and version hints name mur list --all.
	if out, errOut, code := e.runHinted(t, "proj", "mur list --all"); code != 0 || !strings.Contains(out, "tool-edit") {
		t.Errorf("mur list --all = %d %s%s", code, out, errOut)
	}
}

// TestRunWithoutManifestHints: mur run where no murmur.yaml is says what to
// run instead — mur new or --capsule in an empty directory, --roster when
// the directory holds a roster.yaml.
func TestRunWithoutManifestHints(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{"empty/.keep": "", "crew/roster.yaml": "name: crew\n"})
	for _, c := range []struct {
		dir  string
		args []string
		want string
	}{
		{"empty", []string{"run", "--task", "x"}, "error[E-IO-001]: murmur.yaml: no such file or directory\n" +
			"  hint: run mur new <name> to scaffold a capsule, or name one with --capsule <dir> (a formation: --roster <dir>)\n"},
		{"", []string{"run", "--capsule", "crew", "--task", "x"}, "error[E-IO-001]: crew/murmur.yaml: no such file or directory\n" +
			"  hint: crew holds a formation (roster.yaml): run mur run --roster crew\n"},
		{"crew", []string{"run"}, "error[E-IO-001]: murmur.yaml: no such file or directory\n" +
			"  hint: . holds a formation (roster.yaml): run mur run --roster .\n"},
	} {
		out, errOut, code := e.mur(t, c.dir, c.args...)
		expect(t, strings.Join(c.args, " ")+" in "+c.dir, out, errOut, code, "", c.want, 1)
	}
}
