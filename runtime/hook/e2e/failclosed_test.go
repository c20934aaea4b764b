package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// TestFailClosed_Deny_Crash_Hang_Garbage_WrongArm proves the decision
// point fails closed: a call runs only on a clean none. A hook that exits,
// one that outlives its deadline (capabilities.limits.deadline_seconds),
// one that writes garbage, one that answers another arm and one that
// denies with an empty reason each refuse the call with the runtime's
// reason in call_denied and the model's text; nothing ran (no tool_call,
// no shell record); a killed hook is restarted for the next event, which
// it then allows.
func TestFailClosed_Deny_Crash_Hang_Garbage_WrongArm(t *testing.T) {
	cases := []struct {
		name, body, grant, reason string
		arm                       string // the hook_dispatch_error an unsupported arm also writes
	}{
		{"crash", `  exit 3
`, "", "the hook exited (exit code 3) without answering", ""},
		{"hang", `  sleep 30
`, "      limits: {deadline_seconds: 1}\n", "the hook did not answer within 1 s", ""},
		{"garbage", `  echo 'not json at all'
`, "", "the hook's output could not be read: not a JSON object", ""},
		{"wrong-arm", `  reply '"answer":"reopen-task","reason":"again"'
`, "", "the hook answered 'reopen-task', which on-shell does not honor", "reopen-task"},
		{"empty-deny", `  reply '"answer":"deny","reason":""'
`, "", "the hook denied the call with an empty reason", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The hook fails only on its first decision (a marker file in its
			// own directory), so the second command shows the restart.
			body := `  if [ ! -e failed ]; then : > failed
` + tc.body + `  continue
  fi
  reply '"answer":"none"'
`
			c := newCapsule(t, policyManifest+fmt.Sprintf(`  - name: guard
    version: "1.0.0"
    runtime: hook
    capabilities:
      filesystem: {scope: guard}
%s`, tc.grant), `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: echo, input: {command: "echo first"}}
          - {name: echo, input: {command: "echo second"}}
      - text: "done"
`)
			c.mustInstallHook(t, "guard", "binding: on-shell\ncommit_policy: deny\n", hookScript(body))
			r, stderr, code := c.run(t, "echo twice")
			if code != 0 {
				t.Fatalf("mur run exited %d: %s", code, stderr)
			}
			recs := records(t, r.RecordsDir)
			denied := of[trace.CallDenied](t, recs)
			if len(denied) != 1 || denied[0].HookName != "guard" || denied[0].Event != "on-shell" || denied[0].Reason != tc.reason {
				t.Fatalf("call_denied = %+v, want one with reason %q", denied, tc.reason)
			}
			shells := of[trace.Shell](t, recs)
			if len(shells) != 1 || !strings.Contains(shells[0].Command, "second") {
				t.Errorf("shell records = %+v, want only the second command's", shells)
			}
			if calls := of[trace.ToolCall](t, recs); len(calls) != 1 {
				t.Errorf("tool_call records = %+v, want only the second command's", calls)
			}
			msgs := modelToolResults(t, r)
			if len(msgs) != 2 || msgs[0] != "Refused by policy hook 'guard': "+tc.reason+refusalTail {
				t.Errorf("the model read %q", msgs)
			}
			errs := of[trace.HookDispatchError](t, recs)
			if tc.arm == "" && len(errs) != 0 || tc.arm != "" && (len(errs) != 1 || errs[0].Arm != tc.arm || errs[0].Event != "on-shell") {
				t.Errorf("hook_dispatch_error = %+v, want arm %q", errs, tc.arm)
			}
		})
	}
}
