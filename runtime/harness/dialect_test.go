package harness_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/harness"
)

// TestArgv is PROC-6 and PROC-7: each dialect's exact argv, new and
// resumed, with and without a model, as golden values; the token never in
// it.
func TestArgv(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, d := range []harness.Dialect{harness.Claude, harness.Codex} {
		for _, r := range []harness.Run{
			{Binary: "/opt/bin/" + d.Key, Dir: "/rec/ses/harness", URL: "http://127.0.0.1:4242/mcp", Proxy: "/opt/bin/mur"},
			{Binary: "/opt/bin/" + d.Key, Dir: `/rec/a "quoted" \dir/harness`, URL: "http://127.0.0.1:4242/mcp", Proxy: "/opt/bin/mur", Model: "m-1", Resume: "sess-1"},
		} {
			argv, _ := json.Marshal(d.Argv(r))
			b.WriteString(d.Name + " " + string(argv) + "\n")
		}
	}
	golden.Check(t, "argv", b.String())
}

// TestEnv is PROC-8: exactly the allowed names that are set (an empty
// value kept, an unset one left out), then the dialect's own variables;
// never the bridge's token.
func TestEnv(t *testing.T) {
	t.Parallel()
	vals := map[string]string{"HOME": "/home/u", "PATH": "/bin", "EMPTY": "", "MURMUR_HOME": "/m"}
	lookup := func(n string) (string, bool) { v, ok := vals[n]; return v, ok }
	allow := []string{"HOME", "PATH", "EMPTY", "UNSET"}
	if got := strings.Join(harness.Claude.Env(allow, lookup), " "); got != "HOME=/home/u PATH=/bin EMPTY= ENABLE_TOOL_SEARCH=false" {
		t.Errorf("claude env = %q", got)
	}
	if got := strings.Join(harness.Codex.Env(allow, lookup), " "); got != "HOME=/home/u PATH=/bin EMPTY=" {
		t.Errorf("codex env = %q", got)
	}
}

// TestProbe is PROC-10: the tested version, another one, and each way the
// version cannot be read, with W-RUN-002's text.
func TestProbe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, bin string
		d         harness.Dialect
		line      string
		tested    bool
		warning   string
	}{
		{"tested", script("a", `echo "2.1.328 (Claude Code)"; echo more`), harness.Claude, "2.1.328 (Claude Code)", true, ""},
		{"codex tested", script("b", `echo "  codex-cli 0.169.0  "`), harness.Codex, "codex-cli 0.169.0", true, ""},
		{"other version", script("c", `echo "codex-cli 0.170.1"`), harness.Codex, "codex-cli 0.170.1", false,
			"warning[W-RUN-002]: the harness reports version 'codex-cli 0.170.1', which this build's codex dialect was not tested against (tested against 0.169.0)\n"},
		{"non-zero", script("d", `exit 3`), harness.Claude, "", false,
			"warning[W-RUN-002]: the harness version could not be read (tested against 2.1.328): it exited non-zero\n"},
		{"nothing", script("e", `true`), harness.Claude, "", false,
			"warning[W-RUN-002]: the harness version could not be read (tested against 2.1.328): it printed nothing\n"},
		{"slow", script("f", `exec sleep 30`), harness.Claude, "", false,
			"warning[W-RUN-002]: the harness version could not be read (tested against 2.1.328): it did not answer within 200ms\n"},
		{"cannot run", filepath.Join(dir, "missing"), harness.Claude, "", false,
			"warning[W-RUN-002]: the harness version could not be read (tested against 2.1.328): it could not be run: fork/exec " + filepath.Join(dir, "missing") + ": no such file or directory\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := c.d.Probe(context.Background(), c.bin, []string{"PATH=/bin:/usr/bin"}, dir, 200*time.Millisecond, nil)
			warning := ""
			if v.Warning != nil {
				warning = v.Warning.Render()
			}
			if v.Line != c.line || v.Tested != c.tested || warning != c.warning {
				t.Errorf("Probe = %q tested %v warning %q, want %q %v %q", v.Line, v.Tested, warning, c.line, c.tested, c.warning)
			}
		})
	}
}

// TestThread is THR-1: the path (an unsafe context id never a path), the
// file's shape and modes, temp + rename.
func TestThread(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := harness.ThreadPath(home, "cap", "ctx_01")
	if want := filepath.Join(home, "conversations", "cap", "ctx_01", "harness-session.json"); p != want {
		t.Errorf("ThreadPath = %q, want %q", p, want)
	}
	for _, bad := range []string{"../../etc", "a/b", ".hidden", "", strings.Repeat("x", 129)} {
		q := harness.ThreadPath(home, "cap", bad)
		if dir := filepath.Base(filepath.Dir(q)); !strings.HasPrefix(dir, "ctx-sha256-") || filepath.Dir(filepath.Dir(q)) != filepath.Join(home, "conversations", "cap") {
			t.Errorf("ThreadPath(%q) = %q, want a ctx-sha256- directory under the capsule's", bad, q)
		}
	}
	if th, err := harness.ReadThread(p); th != nil || err != nil {
		t.Fatalf("ReadThread(absent) = %v, %v", th, err)
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	if err := harness.WriteThread(p, harness.Thread{Harness: "codex", SessionID: "s1", ContextID: "ctx_01", UsageTotal: &harness.UsageTotal{Input: 22, Output: 14}}, at); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if want := `{"harness":"codex","session_id":"s1","context_id":"ctx_01","written_at":"2026-12-01T10:00:00Z","usage_total":{"input":22,"output":14,"cached":0,"cache_write":0}}`; string(b) != want {
		t.Errorf("harness-session.json = %s, want %s", b, want)
	}
	for path, mode := range map[string]os.FileMode{p: 0o600, filepath.Dir(p): 0o700, filepath.Dir(filepath.Dir(p)): 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s mode = %v, %v; want %v", path, fi.Mode().Perm(), err, mode)
		}
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Errorf("the context directory holds %d entries, want the file alone", len(ents))
	}
	th, err := harness.ReadThread(p)
	if err != nil || th.SessionID != "s1" || th.UsageTotal.Input != 22 {
		t.Errorf("ReadThread = %+v, %v", th, err)
	}
}
