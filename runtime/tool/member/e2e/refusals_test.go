package e2e

import (
	"slices"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// TestRefusals is CALL-2, EWA-3 and TOOL-4 through a real formation of lead
// → mid → leaf, each refusal read as the model got it:
//   - lead (the entry): a member it may not call; end-without-answer for a
//     task no member sent; a second call to mid before its answer;
//   - mid: end-without-answer while its call to leaf is out; then, after the
//     answer, a blank reason, the accepted call, a second one, and
//     call-member after it;
//   - leaf (no callees): neither tool exists.
func TestRefusals(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	lead := capsule{name: "lead", script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: call-member, input: {member: nobody, task: "x"}}
          - {name: end-without-answer, input: {reason: "none"}}
          - {name: call-member, input: {member: mid, task: "review"}}
          - {name: call-member, input: {member: mid, task: "again"}}
      - text: "waiting for mid"
      - text: "lead: {{member_answer}}"
`}
	mid := capsule{name: "mid", extra: peerExtra, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: call-member, input: {member: leaf, task: "look"}}
          - {name: end-without-answer, input: {reason: "too early"}}
      - text: "waiting for leaf"
      - tool_calls:
          - {name: end-without-answer, input: {reason: "   "}}
          - {name: end-without-answer, input: {reason: "leaf said no"}}
          - {name: end-without-answer, input: {reason: "again"}}
          - {name: call-member, input: {member: leaf, task: "more"}}
`}
	leaf := capsule{name: "leaf", extra: peerExtra, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: end-without-answer, input: {reason: "x"}}
          - {name: call-member, input: {member: mid, task: "y"}}
      - text: "leaf done"
`}
	p.install(t, lead, mid, leaf)
	p.roster(t, []string{"lead", "mid", "leaf"}, "lead:mid", "mid:leaf")
	l := p.start(t, "review the parser")
	if code := l.wait(t); code != 0 {
		t.Fatalf("mur run --roster exited %d; stderr:\n%s", code, l.stderr.String())
	}
	_, _, _, midDir := l.peer(t, "mid")
	_, _, _, leafDir := l.peer(t, "leaf")

	lrecs := records(t, l.entry.RecordsDir)
	calls := toolOutputs(t, lrecs, "call-member")
	if len(calls) != 3 {
		t.Fatalf("lead's call-member outputs = %q", calls)
	}
	want(t, "not a callee", calls[0], "'nobody' is not a member this capsule may call; it may call: mid")
	want(t, "no member sent it", toolOutputs(t, lrecs, "end-without-answer")[0],
		"'end-without-answer' ends only a task another formation member sent; no formation member sent this one. Reply in text, saying plainly which part has no answer.")
	want(t, "not yet answered", normaliseAll(calls[1], calls[2])[1],
		"mid has not yet answered call <mcl_1> from this task, so nothing was sent. Its answer reaches you only after you end your turn: end your turn now by replying without calling a tool. Once that answer has arrived you may call mid again with new work.")
	if mc := of[trace.MemberCall](t, lrecs); len(mc) != 1 {
		t.Errorf("the lead recorded %d member calls, want 1: refusals record none (CALL-2)", len(mc))
	}

	mrecs := records(t, midDir)
	mcalls := toolOutputs(t, mrecs, "call-member")
	ewa := toolOutputs(t, mrecs, "end-without-answer")
	if len(ewa) != 4 || len(mcalls) != 2 {
		t.Fatalf("mid's outputs: call-member %q, end-without-answer %q", mcalls, ewa)
	}
	want(t, "call out", normaliseAll(mcalls[0], ewa[0])[1],
		"Call <mcl_1> to leaf is still out; its answer arrives after you end your turn. Call end-without-answer only when no call is left to wait for.")
	want(t, "blank reason", ewa[1], "'end-without-answer' needs a reason: say in a sentence why you have no answer.")
	want(t, "accepted", ewa[2], `<untrusted-content source=tool:end-without-answer>
{"caller":"lead","status":"ending"}
</untrusted-content>
[end-without-answer] This task ends without an answer once this turn's tool calls finish, and lead is told you gave none.`)
	want(t, "already", ewa[3], "This task is already ending without an answer.")
	want(t, "ending", mcalls[1], "'call-member' makes no call from a task that is ending without an answer.")
	want(t, "mid's result", result(t, midDir), "no answer: leaf said no")

	frecs := records(t, leafDir)
	want(t, "leaf end-without-answer", toolOutputs(t, frecs, "end-without-answer")[0],
		"'end-without-answer' is answered only for a formation member that roster.yaml lets call another; this session is not one")
	want(t, "leaf call-member", toolOutputs(t, frecs, "call-member")[0],
		"'call-member' is answered only for a formation member that roster.yaml lets call another; this session is not one")
	for _, r := range of[trace.SessionStart](t, frecs) {
		for _, tool := range r.ToolsDeclared {
			if tool == "call-member" || tool == "end-without-answer" {
				t.Errorf("leaf declares %s with no callee (CALL-1, EWA-1)", tool)
			}
		}
	}
	if d := of[trace.SessionStart](t, mrecs)[0].ToolsDeclared; !slices.Contains(d, "call-member") || !slices.Contains(d, "end-without-answer") {
		t.Errorf("mid's tools_declared = %v, want both tools", d)
	}
}
