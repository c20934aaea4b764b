package capsule_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/capsuletest"
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
