package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	anthropic "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	openai "github.com/murmur-go/mur/runtime/driver/openai/fake"
	"github.com/murmur-go/mur/runtime/trace"
)

// guardHook is an on-shell policy hook that denies a command holding
// "rm -rf" and lets every other one run.
const guardHook = `#!/bin/sh
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/')
  case "$line" in
    *'"phase":"decide"'*'rm -rf'*) printf '{"id":%s,"answer":"deny","reason":"destructive command"}\n' "$id";;
    *) printf '{"id":%s,"answer":"none"}\n' "$id";;
  esac
done
`

// guardRefusal is what the harness must be handed for the denied command.
const guardRefusal = "Refused by policy hook 'guard': destructive command\n\nThis call did not run. Retrying it unchanged will be refused again."

// installHook writes a native hook artifact (its murmur.yaml with contract,
// and hook.sh) beside the capsule and installs it into c's global store.
func installHook(t *testing.T, c *hcap, name, contract, script string) {
	t.Helper()
	src := filepath.Join(filepath.Dir(c.dir), name)
	mkdirs(t, src)
	for file, body := range map[string]string{
		"murmur.yaml": "name: " + name + "\nversion: \"1.0.0\"\nruntime: hook\nimplementation: native\ncommand: hook.sh\n" + contract,
		"hook.sh":     script,
	} {
		if err := os.WriteFile(filepath.Join(src, file), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	install := exec.Command(mur, "install", "-g", src)
	install.Dir, install.Env = src, testmur.Env(c.home)
	if _, errOut, code := testmur.Exec(t, install); code != 0 {
		t.Fatalf("mur install -g %s = %d: %s", name, code, errOut)
	}
}

// deniedShell checks a run whose first shell command the guard denied and
// whose second ran: one call_denied, the second command's shell record only.
func deniedShell(t *testing.T, recs []trace.Line, ran string) {
	t.Helper()
	denied := of[trace.CallDenied](t, recs)
	if len(denied) != 1 || denied[0].HookName != "guard" || denied[0].Event != "on-shell" || denied[0].Reason != "destructive command" {
		t.Errorf("call_denied = %+v", denied)
	}
	if shells := of[trace.Shell](t, recs); len(shells) != 1 || shells[0].Command != ran {
		t.Errorf("shell = %+v, want only %q", shells, ran)
	}
}

// TestRealClaudeShellDenied: the real Claude Code, whose own tools mur
// turns off (its own Bash answers "No such tool available" and runs
// nothing), asks for a destructive bash command through the bridge; the
// capsule's on-shell policy hook denies it, and what Claude Code sends the
// model next is exactly murmur's refusal; the next command runs.
func TestRealClaudeShellDenied(t *testing.T) {
	t.Parallel()
	c, fake := realClaude(t, "bash", "", "artifacts:\n  - {name: guard, version: \"1.0.0\", runtime: hook}\n")
	installHook(t, c, "guard", "binding: on-shell\ncommit_policy: deny\n", guardHook)
	fake.Enqueue(anthropic.Uses(anthropic.ToolUse{Name: "Bash", Input: `{"command":"touch own-bash-ran"}`}),
		anthropic.Uses(anthropic.ToolUse{Name: "mcp__mur__bash", Input: `{"command":"rm -rf build"}`}),
		anthropic.Uses(anthropic.ToolUse{Name: "mcp__mur__bash", Input: `{"command":"echo fine"}`}), anthropic.Text("DONE"))
	r, _, stderr, code := c.run(t, "clean up")
	if res := result(t, r); code != 0 || res != "DONE" {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	recs := records(t, r.RecordsDir)
	deniedShell(t, recs, "echo fine")
	reqs := fake.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests to the fake, want 4", len(reqs))
	}
	// Claude Code's own Bash is not there to run: it answers the model
	// itself, and nothing ran.
	if _, err := os.Stat(filepath.Join(r.Workdir, "own-bash-ran")); err == nil {
		t.Errorf("Claude Code's own Bash ran a command")
	}
	if got := lastUser(t, reqs[1]); !strings.Contains(got, "No such tool available: Bash") {
		t.Errorf("Claude Code answered its own Bash call with %q, want its no-such-tool error", got)
	}
	if got := lastUser(t, reqs[2]); got != guardRefusal {
		t.Errorf("Claude Code sent the model %q after the denied call, want exactly %q", got, guardRefusal)
	}
	if tcs := of[trace.ToolCall](t, recs); len(tcs) != 1 || tcs[0].ToolName != "bash" {
		t.Errorf("tool_call = %+v, want only the bridged echo", tcs)
	}
	noFailures(t, fake.Failures())
}

// TestRealCodexShellDenied is TestRealClaudeShellDenied for the real Codex
// CLI, whose shell, unified exec and image viewer mur turns off: its own
// shell answers "unsupported call" and runs nothing, the bridged echo holding "rm -rf" is denied and the model reads murmur's
// refusal, byte for byte, as the call's output.
func TestRealCodexShellDenied(t *testing.T) {
	t.Parallel()
	c, fake := realCodex(t, "", "artifacts:\n  - {name: guard, version: \"1.0.0\", runtime: hook}\n")
	installHook(t, c, "guard", "binding: on-shell\ncommit_policy: deny\n", guardHook)
	fake.Enqueue(openai.Reply{ToolCalls: []openai.ToolCall{{Name: "shell", Arguments: `{"command":["touch","own-shell-ran"]}`}}},
		openai.Reply{ToolCalls: []openai.ToolCall{{Name: "echo", Namespace: "mcp__mur", Arguments: `{"command":"echo rm -rf build"}`}}},
		openai.Reply{ToolCalls: []openai.ToolCall{{Name: "echo", Namespace: "mcp__mur", Arguments: `{"command":"echo fine"}`}}},
		openai.Reply{Text: "DONE"})
	r, _, stderr, code := c.run(t, "clean up")
	if res := result(t, r); code != 0 || res != "DONE" {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	deniedShell(t, records(t, r.RecordsDir), "echo fine")
	reqs := fake.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests to the fake, want 4", len(reqs))
	}
	if _, err := os.Stat(filepath.Join(r.Workdir, "own-shell-ran")); err == nil {
		t.Errorf("Codex's own shell ran a command")
	}
	if own := reqs[1].Decoded.Items(); own[len(own)-1].Text() != "unsupported call: shell" {
		t.Errorf("Codex answered its own shell call with %s, want its unsupported-call error", own[len(own)-1].Output)
	}
	// Codex puts a part of its own (its wall time) before the tool's
	// result (BRG-9); the tool's part is murmur's refusal, byte for byte.
	its := reqs[2].Decoded.Items()
	last := its[len(its)-1]
	var parts []struct{ Type, Text string }
	if err := json.Unmarshal(last.Output, &parts); err != nil || last.Type != "function_call_output" || len(parts) == 0 ||
		parts[len(parts)-1].Text != guardRefusal {
		t.Errorf("Codex sent the model %s %s after the denied call, want its last part exactly %q", last.Type, last.Output, guardRefusal)
	}
	noFailures(t, fake.Failures())
}
