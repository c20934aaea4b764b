package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestHarnessShellDeniedByPolicyHook: a harness has no shell of its own
// (Claude Code runs with --tools "", Codex with its shell tool disabled),
// so its shell commands are bridged calls, and they pass the capsule's
// on-shell policy hook in the same dispatch as the http loop's: a
// destructive command is refused with murmur's text and call_denied, and
// the next command runs.
func TestHarnessShellDeniedByPolicyHook(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{"claude", "codex"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			c := newCap(t, dialect, "", "artifacts:\n  - {name: guard, version: \"1.0.0\", runtime: hook}\n", `{"runs":[{"steps":[
		{"tool":{"name":"echo","args":{"command":"echo rm -rf /"}}},
		{"tool":{"name":"echo","args":{"command":"echo fine"}}},
		{"answer":"DONE"}]}]}`)
			src := filepath.Join(filepath.Dir(c.dir), "guard")
			for name, body := range map[string]string{
				"murmur.yaml": "name: guard\nversion: \"1.0.0\"\nruntime: hook\nimplementation: native\ncommand: hook.sh\nbinding: on-shell\ncommit_policy: deny\n",
				"hook.sh": `#!/bin/sh
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/')
  case "$line" in
    *'"phase":"decide"'*'rm -rf'*) printf '{"id":%s,"answer":"deny","reason":"destructive command"}\n' "$id";;
    *) printf '{"id":%s,"answer":"none"}\n' "$id";;
  esac
done
`,
			} {
				if err := os.MkdirAll(src, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			install := exec.Command(mur, "install", "-g", src)
			install.Dir, install.Env = src, testmur.Env(c.home)
			if _, errOut, code := testmur.Exec(t, install); code != 0 {
				t.Fatalf("mur install = %d: %s", code, errOut)
			}
			r, _, stderr, code := c.run(t, "clean up")
			if code != 0 || result(t, r) != "DONE" {
				t.Fatalf("mur run = %d, result %q, stderr %q", code, result(t, r), stderr)
			}
			recs := records(t, r.RecordsDir)
			denied := of[trace.CallDenied](t, recs)
			if len(denied) != 1 || denied[0].HookName != "guard" || denied[0].Event != "on-shell" || denied[0].Reason != "destructive command" {
				t.Errorf("call_denied = %+v", denied)
			}
			if shells := of[trace.Shell](t, recs); len(shells) != 1 || shells[0].Command != "echo fine" {
				t.Errorf("shell = %+v, want only the allowed command", shells)
			}
			res := c.results(t)
			want := "Refused by policy hook 'guard': destructive command\n\nThis call did not run. Retrying it unchanged will be refused again."
			if len(res) != 2 || res[0].Text != want || !res[0].IsError {
				t.Errorf("the harness read %+v, want first %q", res, want)
			}
		})
	}
}
