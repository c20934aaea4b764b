package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
			c := newCap(t, dialect, "", "artifacts:\n  - {name: guard, version: \"1.0.0\", runtime: hook}\n"+
				"  - {name: watch, version: \"1.0.0\", runtime: hook, capabilities: {filesystem: {scope: watch}}}\n", `{"runs":[{"steps":[
		{"tool":{"name":"echo","args":{"command":"echo rm -rf /"}}},
		{"tool":{"name":"echo","args":{"command":"echo fine"}}},
		{"answer":"DONE"}]}]}`)
			installHook(t, c, "guard", "binding: on-shell\ncommit_policy: deny\n", guardHook)
			// watch observes every event, and asks for run-inference at
			// the first on-inference: under transport: process the host
			// answers that it is not available.
			installHook(t, c, "watch", "", `#!/bin/sh
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/')
  printf '%s\n' "$line" >> events.jsonl
  case "$line" in
    *'"event":"on-inference"'*)
      if [ ! -e asked ]; then
        : > asked
        printf '{"id":"c1","call":"run-inference","params":{"prompt":"judge"}}\n'
        IFS= read -r answer
        printf '%s\n' "$answer" > run-inference.json
      fi;;
  esac
  printf '{"id":%s,"answer":"none"}\n' "$id"
done
`)
			r, _, stderr, code := c.run(t, "clean up")
			if code != 0 || result(t, r) != "DONE" {
				t.Fatalf("mur run = %d, result %q, stderr %q", code, result(t, r), stderr)
			}
			recs := records(t, r.RecordsDir)
			deniedShell(t, recs, "echo fine")
			res := c.results(t)
			if len(res) != 2 || res[0].Text != guardRefusal || !res[0].IsError {
				t.Errorf("the harness read %+v, want first %q", res, guardRefusal)
			}
			// The observer was handed each harness turn's inference (as
			// the trace's inference records say it), and both shell
			// commands, the denied one marked refused.
			events, err := os.ReadFile(filepath.Join(r.Workdir, "watch", "events.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var turns, shells []string
			for _, l := range strings.Split(strings.TrimSpace(string(events)), "\n") {
				var req struct {
					Event   string
					Payload struct {
						Turn          int             `json:"turn"`
						Decision      string          `json:"decision"`
						HarnessTurnID string          `json:"harness_turn_id"`
						Argv          []string        `json:"argv"`
						Outcome       json.RawMessage `json:"outcome"`
					}
				}
				if err := json.Unmarshal([]byte(l), &req); err != nil {
					t.Fatalf("watch read %q: %v", l, err)
				}
				switch req.Event {
				case "on-inference":
					turns = append(turns, fmt.Sprintf("%d %s %s", req.Payload.Turn, req.Payload.Decision, req.Payload.HarnessTurnID))
				case "on-shell":
					shells = append(shells, fmt.Sprintf("%v %s", req.Payload.Argv, req.Payload.Outcome))
				}
			}
			var wantTurns []string
			for _, in := range of[trace.Inference](t, recs) {
				wantTurns = append(wantTurns, fmt.Sprintf("%d %s %s", in.Turn, in.Decision, in.HarnessTurnID))
			}
			if len(wantTurns) < 2 || strings.Join(turns, "\n") != strings.Join(wantTurns, "\n") {
				t.Errorf("on-inference observed:\n%s\nwant (the inference records):\n%s", strings.Join(turns, "\n"), strings.Join(wantTurns, "\n"))
			}
			if len(shells) != 2 || !strings.Contains(shells[0], `"status":"refused","hook_name":"guard","reason":"destructive command"`) ||
				!strings.Contains(shells[1], `[echo fine] {"exit_code":0,`) {
				t.Errorf("on-shell observed:\n%s", strings.Join(shells, "\n"))
			}
			got, err := os.ReadFile(filepath.Join(r.Workdir, "watch", "run-inference.json"))
			if wantRI := `{"id":"c1","error":"run-inference is not available under inference.transport: process"}` + "\n"; err != nil || string(got) != wantRI {
				t.Errorf("run-inference answered %q (%v), want %q", got, err, wantRI)
			}
		})
	}
}
