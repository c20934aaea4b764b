package capsule_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/capsuletest"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// lead hands its task to callee, ends its turn, and answers with the
// callee's answer once it arrives.
func lead(callee string) spec {
	return spec{name: "lead", caps: reachesMembers, extra: authenticated, script: fmt.Sprintf(`script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: call-member, input: {member: %s, task: "{{task}}"}}]
      - text: "waiting for %s"
      - text: "lead: {{member_answer}}"
`, callee, callee)}
}

// reachesMembers lets a capsule reach its callees' doors: a formation
// serves each on loopback at a port chosen at launch.
const reachesMembers = "  network:\n    allow: [localhost]\n"

// authenticated is a member's door: formation tokens are checked (GO-5) and
// a peer task names its caller.
const authenticated = "network:\n  authentication:\n    scheme: bearer\n"

// worker is a peer answering with one scripted turn.
func worker(turn string) spec {
	return spec{name: "worker", extra: peerExtra + authenticated, script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - " + turn + "\n"}
}

// pair serves worker, then lead as its caller with task, both members of one
// formation, and returns the lead's result once its session ended and the
// lead's member_call records.
func pair(t *testing.T, w spec, task string, env map[string]string) (*capsuletest.Capsule, []trace.MemberCall, *capsuletest.Capsule) {
	t.Helper()
	world := newWorld(t)
	frm := capsuletest.NewFormation(t)
	wk := world.start(t, w, nil, frm.Member(t, "worker"))
	lenv := frm.Member(t, "lead", capsuletest.Callee{Name: "worker", Capsule: wk})
	for k, v := range env {
		lenv[k] = v
	}
	ld := world.start(t, lead("worker"), ptr(task), lenv)
	if res := ld.Wait(t); res.Err != nil {
		t.Fatalf("lead: %v\nstderr:\n%s", res.Err, ld.Stderr)
	}
	return ld, tracetest.OfType[trace.MemberCall](t, tracetest.Records(t, ld.RecordsDir)), wk
}

// resultText is a session's out/result.txt.
func resultText(t testing.TB, recordsDir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(recordsDir, "out", "result.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCallMemberAnswer: a call-member call between two capsules served in
// one process ends completed, its answer delivered in the lead's one
// continuation and in its result; the worker's task is a trusted peer task
// of the lead's (CALL-3, CALL-11, RND-2).
func TestCallMemberAnswer(t *testing.T) {
	t.Parallel()
	ld, mc, wk := pair(t, worker(`text: "worker did: {{task}}"`), "build the parser", nil)
	if got := resultText(t, ld.RecordsDir); got != "lead: worker did: build the parser" {
		t.Errorf("lead result = %q", got)
	}
	if len(mc) != 1 || mc[0].Status != "completed" || !mc[0].Delivered || mc[0].Output != "worker did: build the parser" {
		t.Fatalf("member_call = %+v, want one completed and delivered", mc)
	}
	cont := tracetest.Continuation(t, ld.RecordsDir, 1)
	if !strings.Contains(cont, "to worker ended completed:\n<untrusted-content source=member:worker>\nworker did: build the parser\n</untrusted-content>") {
		t.Errorf("continuation = %q", cont)
	}
	ws := tracetest.OfType[trace.TaskStart](t, tracetest.Records(t, wk.RecordsDir))
	if len(ws) != 1 || ws[0].TaskID != mc[0].MemberTaskID || ws[0].Origin != "peer" || ws[0].Trust != "trusted" || ws[0].CallerMember != "lead" {
		t.Errorf("the worker's task_start = %+v, want the call's task, origin peer, trust trusted, caller_member lead", ws)
	}
}

// TestCallMemberTimedOut: MURMUR_DELEGATION_TIMEOUT_SECS bounds the call;
// it ends timed_out with no answer, and the worker's task is left running
// (CALL-5, CALL-10).
func TestCallMemberTimedOut(t *testing.T) {
	t.Parallel()
	ld, mc, wk := pair(t, worker(`{delay_ms: 600000, text: "late"}`), "build it", map[string]string{"MURMUR_DELEGATION_TIMEOUT_SECS": "1"})
	if len(mc) != 1 || mc[0].Status != "timed_out" {
		t.Fatalf("member_call = %+v, want one timed_out", mc)
	}
	cont := tracetest.Continuation(t, ld.RecordsDir, 1)
	if !strings.Contains(cont, "worker did not answer within 1s. Its task was not cancelled") {
		t.Errorf("continuation = %q", cont)
	}
	if ends := tracetest.OfType[trace.TaskEnd](t, tracetest.Records(t, wk.RecordsDir)); len(ends) != 0 {
		t.Errorf("the worker's task ended at the call's bound: %+v", ends)
	}
	wk.Stop(t)
	ends := tracetest.OfType[trace.TaskEnd](t, tracetest.Records(t, wk.RecordsDir))
	if len(ends) != 1 || ends[0].TaskID != mc[0].MemberTaskID || ends[0].ExitStatus != "canceled" {
		t.Errorf("the worker's task_end once it was stopped = %+v, want the call's task canceled", ends)
	}
}

// TestCallMemberFailed: a member task that fails ends the call failed with
// its status message, and the continuation says no answer came (CALL-10,
// RND-5).
func TestCallMemberFailed(t *testing.T) {
	t.Parallel()
	ld, mc, _ := pair(t, worker(`error: "boom"`), "build it", nil)
	if len(mc) != 1 || mc[0].Status != "failed" {
		t.Fatalf("member_call = %+v, want one failed", mc)
	}
	if cont := tracetest.Continuation(t, ld.RecordsDir, 1); !strings.Contains(cont, "[call-member] No answer came from: worker (call ") {
		t.Errorf("continuation = %q", cont)
	}
}

// TestCallMemberBusy: a worker that is full (one task running, one queued,
// lifecycle.queue_depth 1) turns the lead's call away busy; the call keeps
// being offered, and once the worker is free an offer is taken and the call
// ends completed (CALL-7, CALL-8, CALL-9).
func TestCallMemberBusy(t *testing.T) {
	t.Parallel()
	world := newWorld(t)
	frm := capsuletest.NewFormation(t)
	wk := world.start(t, spec{name: "worker", extra: peerExtra + authenticated,
		script: "script_version: 1\nrules:\n  - match: {contains: \"BLOCK\"}\n    turns:\n      - {delay_ms: 600000, text: \"unblocked\"}\nfallback:\n  turns:\n    - text: \"worker did: {{task}}\"\n"},
		nil, frm.Member(t, "worker"))
	door := wk.Client(t)
	send := func(text string) a2a.Task {
		t.Helper()
		resp, err := door.SendMessage(t.Context(), a2a.SendMessageRequest{
			Message:       a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}},
			Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
		})
		if err != nil || resp.Task == nil {
			t.Fatalf("SendMessage %s: %v", text, err)
		}
		return *resp.Task
	}
	block := send("BLOCK")
	testmur.WaitEvent(t, wk.RecordsDir, "task_start", time.Minute) // BLOCK is at work
	if q := send("QUEUED"); q.Status.State != a2a.TaskStateSubmitted {
		t.Fatalf("the QUEUED task is %s, want it queued", q.Status.State)
	}
	ld := world.start(t, lead("worker"), ptr("build it"), frm.Member(t, "lead", capsuletest.Callee{Name: "worker", Capsule: wk}))
	testmur.WaitEvent(t, ld.RecordsDir, "member_call_busy", time.Minute)
	if _, err := door.CancelTask(t.Context(), a2a.CancelTaskRequest{ID: block.ID}); err != nil {
		t.Fatalf("CancelTask BLOCK: %v", err)
	}
	if res := ld.Wait(t); res.Err != nil || res.ExitStatus != "ok" {
		t.Fatalf("lead ended %+v\nstderr:\n%s", res, ld.Stderr)
	}
	recs := tracetest.Records(t, ld.RecordsDir)
	if out := tracetest.ToolOutputs(t, recs, "call-member"); len(out) != 1 || !strings.Contains(out[0], `"status":"busy"`) {
		t.Errorf("call-member result = %q, want busy", out)
	}
	busy := tracetest.OfType[trace.MemberCallBusy](t, recs)
	if len(busy) == 0 || busy[0].Offer != 1 || busy[0].Message != "task rejected: capsule is busy" {
		t.Errorf("member_call_busy = %+v, want the first offer's refusal", busy)
	}
	if mc := tracetest.OfType[trace.MemberCall](t, recs); len(mc) != 1 || mc[0].Status != "completed" || mc[0].Output != "worker did: build it" {
		t.Errorf("member_call = %+v, want completed once the worker was free", mc)
	}
	if got := resultText(t, ld.RecordsDir); got != "lead: worker did: build it" {
		t.Errorf("lead result = %q", got)
	}
}

// TestCallMemberNoAnswerBelow: in the chain lead → mid → leaf, leaf fails
// and mid ends without an answer; the lead's call ends no_answer with mid's
// reason, and its continuation names leaf further down (EWA-2, EWA-4, RND-5,
// RND-7).
func TestCallMemberNoAnswerBelow(t *testing.T) {
	t.Parallel()
	world := newWorld(t)
	frm := capsuletest.NewFormation(t)
	leaf := world.start(t, spec{name: "leaf", extra: peerExtra + authenticated,
		script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - error: \"leaf broke\"\n"}, nil, frm.Member(t, "leaf"))
	mid := world.start(t, spec{name: "mid", caps: reachesMembers, extra: peerExtra + authenticated, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: call-member, input: {member: leaf, task: "{{task}}"}}]
      - text: "waiting for leaf"
      - tool_calls: [{name: end-without-answer, input: {reason: "leaf gave me no answer"}}]
`}, nil, frm.Member(t, "mid", capsuletest.Callee{Name: "leaf", Capsule: leaf}))
	ld := world.start(t, lead("mid"), ptr("review the parser"), frm.Member(t, "lead", capsuletest.Callee{Name: "mid", Capsule: mid}))
	if res := ld.Wait(t); res.Err != nil {
		t.Fatalf("lead: %v\nstderr:\n%s", res.Err, ld.Stderr)
	}
	if mc := tracetest.OfType[trace.MemberCall](t, tracetest.Records(t, ld.RecordsDir)); len(mc) != 1 || mc[0].Status != "no_answer" || mc[0].Output != "leaf gave me no answer" {
		t.Errorf("the lead's member_call = %+v, want no_answer with mid's reason", mc)
	}
	if cont := tracetest.Continuation(t, ld.RecordsDir, 1); !strings.Contains(cont, "no_answer; further down, no answer came from leaf (failed))") {
		t.Errorf("the lead's continuation = %q", cont)
	}
	if te := tracetest.OfType[trace.TaskEnd](t, tracetest.Records(t, mid.RecordsDir)); len(te) != 1 || te[0].ExitStatus != "no_answer" {
		t.Errorf("mid's task_end = %+v, want no_answer", te)
	}
}
