package e2e

import (
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// The chain lead → mid → leaf: leaf fails; mid either ends without an
// answer ("ewa" tasks) or answers anyway ("gap" tasks).
var (
	chainMid = capsule{name: "mid", extra: peerExtra, script: `script_version: 1
rules:
  - match: {contains: "ewa"}
    turns:
      - tool_calls: [{name: call-member, input: {member: leaf, task: "{{task}}"}}]
      - text: "waiting for leaf"
      - tool_calls: [{name: end-without-answer, input: {reason: "leaf gave me no answer"}}]
  - match: {contains: "gap"}
    turns:
      - tool_calls: [{name: call-member, input: {member: leaf, task: "{{task}}"}}]
      - text: "waiting for leaf"
      - text: "mid's own answer"
`}
	chainLeaf = capsule{name: "leaf", extra: peerExtra, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - error: "leaf broke"
`}
)

// runChain launches lead → mid → leaf with task and returns the lead's and
// mid's records directories once it ended with exit code 0.
func runChain(t *testing.T, task string) (lead, mid string) {
	t.Helper()
	p := newProject(t)
	p.install(t, leadCalls("mid"), chainMid, chainLeaf)
	p.roster(t, []string{"lead", "mid", "leaf"}, "lead:mid", "mid:leaf")
	l := p.start(t, task)
	if code := l.wait(t); code != 0 {
		t.Fatalf("mur run --roster exited %d; stderr:\n%s", code, l.stderr.String())
	}
	_, _, _, mid = l.peer(t, "mid")
	return l.entry.RecordsDir, mid
}

// TestChainNoAnswer is EWA-2/4 and RND-5/7 across three members: mid ends
// without an answer after leaf failed; the lead's call ends no_answer and
// names leaf further down; mid's task ends no_answer, with no task_failed.
func TestChainNoAnswer(t *testing.T) {
	t.Parallel()
	lead, mid := runChain(t, "ewa: review the parser")
	want(t, "mid's continuation", normalise(continuation(t, mid, 1)), `[call-member] call <mcl_1> to leaf ended failed, with no answer from leaf:
<untrusted-content source=member:leaf>
error: leaf broke
</untrusted-content>

[call-member] No answer came from: leaf (call <mcl_1>, failed)`+noAnswerTail+`

`+lastMissing+` If you have no answer to give, call end-without-answer with the reason instead: the runtime then tells lead plainly that you gave none.`)
	mrecs := records(t, mid)
	want(t, "end-without-answer result", normalise(toolOutputs(t, mrecs, "end-without-answer")[0]), `<untrusted-content source=tool:end-without-answer>
{"caller":"lead","status":"ending"}
</untrusted-content>
[end-without-answer] This task ends without an answer once this turn's tool calls finish, and lead is told you gave none.`)
	want(t, "mid's result", result(t, mid), "no answer: leaf gave me no answer")
	if te := of[trace.TaskEnd](t, mrecs); len(te) != 1 || te[0].ExitStatus != "no_answer" {
		t.Errorf("mid's task_end = %v, want exit_status no_answer (EWA-4)", te)
	}
	if tf := of[trace.TaskFailed](t, mrecs); len(tf) != 0 {
		t.Errorf("mid wrote task_failed for a no_answer task: %v", tf)
	}
	if inf := of[trace.Inference](t, mrecs); len(inf) != 3 {
		t.Errorf("mid made %d inference calls, want 3: none after end-without-answer (EWA-4)", len(inf))
	}
	want(t, "lead's continuation", normalise(continuation(t, lead, 1)), `[call-member] call <mcl_1> to mid ended no_answer, with no answer from mid:
<untrusted-content source=member:mid>
leaf gave me no answer
</untrusted-content>

[call-member] No answer came from: mid (call <mcl_1>, no_answer; further down, no answer came from leaf (failed))`+noAnswerTail+`

`+lastMissing)
	if mc := of[trace.MemberCall](t, records(t, lead)); len(mc) != 1 || mc[0].Status != "no_answer" || mc[0].Output != "leaf gave me no answer" {
		t.Errorf("the lead's member_call = %v", mc)
	}
}

// TestChainGap is EWA-4's last sentence and RND-6: mid answers in text after
// leaf gave none; its task completes with noAnswerBelow, and the lead reads
// its answer with a gap line.
func TestChainGap(t *testing.T) {
	t.Parallel()
	lead, mid := runChain(t, "gap: review the parser")
	want(t, "mid's result", result(t, mid), "mid's own answer")
	want(t, "lead's continuation", normalise(continuation(t, lead, 1)), `[call-member] call <mcl_1> to mid ended completed:
<untrusted-content source=member:mid>
mid's own answer
</untrusted-content>

[call-member] mid (call <mcl_1>) answered without an answer from leaf (failed): any part of its answer that stands in for theirs is mid's own, not theirs.

`+lastMissing)
	want(t, "lead's result", result(t, lead), "lead: mid's own answer")
}
