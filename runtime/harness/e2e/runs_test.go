package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/harness/bridge"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestCodexKeepWorking: keep_working reopens by a resume of the same codex
// thread (PROC-13), its message the prompt; each run's session id in its
// harness_session (HEV-4); codex's running totals become
// per-run counts (HEV-5); the exact argv of a resume (PROC-7) and the
// token only in the environment (PROC-8).
func TestCodexKeepWorking(t *testing.T) {
	t.Parallel()
	c := newCap(t, "codex", "  model: gpt-test\n", "lifecycle:\n  keep_working: {limit: 1, message: Check it once more.}\n", `{"runs":[
		{"steps":[{"tool":{"name":"echo","args":{"command":"one"}}},{"answer":"first","usage":{"input":11,"output":7}}]},
		{"steps":[{"answer":"second","usage":{"input":11,"output":7}}]}]}`)
	r, _, stderr, code := c.run(t, "work")
	if res := result(t, r); code != 0 || res != "second" {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	calls := c.calls(t)
	if len(calls) != 2 {
		t.Fatalf("%d runs, want 2", len(calls))
	}
	recs := records(t, r.RecordsDir)
	starts := of[trace.HarnessStart](t, recs)
	sess := of[trace.HarnessSession](t, recs)
	if len(starts) != 2 || len(sess) != 2 || starts[1].Mode != "resume" || starts[1].PromptKind != "keep_working" ||
		starts[1].HarnessSessionID == nil || *starts[1].HarnessSessionID != sess[0].HarnessSessionID ||
		sess[1].HarnessSessionID != sess[0].HarnessSessionID || sess[0].Auth != "unknown" || starts[0].Harness != "codex" {
		t.Fatalf("harness_start %+v, harness_session %+v", starts, sess)
	}
	a1, a2 := calls[0].Argv, calls[1].Argv
	if a1[1] != "exec" || a1[2] != "--json" || a2[1] != "exec" || a2[2] != "resume" || a2[len(a2)-2] != sess[0].HarnessSessionID ||
		a2[len(a2)-1] != "-" || a1[len(a1)-3] != "-m" || a1[len(a1)-2] != "gpt-test" {
		t.Errorf("argv %q, then %q", a1, a2)
	}
	for _, fc := range calls {
		if strings.Contains(strings.Join(fc.Argv, " "), "mtt_") {
			t.Errorf("the token is in argv: %q", fc.Argv)
		}
		if got := strings.Join(fc.Env, ","); got != "HOME,PATH,FAKE_HARNESS_SCRIPT,TMPDIR" {
			t.Errorf("environment names = %s (PROC-8, and a contained codex's TMPDIR)", got)
		}
	}
	if calls[1].Stdin != "Check it once more." {
		t.Errorf("the resume's prompt = %q, want the keep-working message", calls[1].Stdin)
	}
	exits := of[trace.HarnessExit](t, recs)
	if len(exits) != 2 || *exits[0].InputTokens != 11 || *exits[1].InputTokens != 11 || *exits[1].OutputTokens != 7 {
		t.Errorf("harness_exit = %+v, want 11/7 each: the differences of the running totals", exits)
	}
	if end := only[trace.TaskEnd](t, recs); end.InputTokens != 22 || end.OutputTokens != 14 || end.KeepWorking == nil || end.KeepWorking.Used != 1 {
		t.Errorf("task_end = %+v", end)
	}
}

// TestMaxTurns is PROC-14: the max_turns-th turn shows a tool call, so the
// run is interrupted and the task ends max_turns_reached; harness_failed
// says so with source runtime; no E-RUN-033.
func TestMaxTurns(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "  max_turns: 2\n", "", `{"runs":[{"steps":[
		{"tool":{"name":"echo","args":{"command":"one"}}},
		{"tool":{"name":"echo","args":{"command":"two"}}},
		{"tool":{"name":"echo","args":{"command":"three"}}}]}]}`)
	r, _, stderr, code := c.run(t, "loop")
	if res := result(t, r); code != 1 || res != "stopped: inference.max_turns (2) reached before the task finished" || strings.Contains(stderr, "E-RUN-033") {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	recs := records(t, r.RecordsDir)
	f := only[trace.HarnessFailed](t, recs)
	if f.Kind != "max-turns" || f.Source != "runtime" {
		t.Errorf("harness_failed = %+v", f)
	}
	ex := only[trace.HarnessExit](t, recs)
	if ex.Cause != "interrupted" || ex.Signal == nil || *ex.Signal != "SIGTERM" {
		t.Errorf("harness_exit = %+v", ex)
	}
	for _, tc := range of[trace.ToolCall](t, recs) {
		if tc.Turn == 1 && tc.Status == "ok" {
			t.Errorf("the max_turns-th turn's call ran: %+v", tc)
		}
	}
}

// TestMaxTurnsBridgedCall is PROC-14's last case and BRG-7: a bridged
// call the stream never showed is attributed, after BRG-6's 5 s wait, to
// the newest turn — the max_turns-th, opened by a text-only message — and
// refused with BRG-7's text, nothing run, and the run interrupted (whether
// the harness reads the refusal before its SIGTERM is not fixed).
func TestMaxTurnsBridgedCall(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "  max_turns: 2\n", "", `{"runs":[{"steps":[
		{"tool":{"name":"echo","args":{"command":"one"}}},
		{"raw":"{\"type\":\"assistant\",\"message\":{\"id\":\"msg_text_only\",\"content\":[{\"type\":\"text\",\"text\":\"and now\"}]}}"},
		{"tool":{"name":"echo","args":{"command":"two"},"no_event":true}},
		{"sleep":"30s"}]}]}`)
	r, _, stderr, code := c.run(t, "loop")
	if res := result(t, r); code != 1 || res != "stopped: inference.max_turns (2) reached before the task finished" {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	recs := records(t, r.RecordsDir)
	tcs := of[trace.ToolCall](t, recs)
	want := bridge.RefusalMaxTurns("echo", 2)
	if len(tcs) != 2 || tcs[0].Status != "ok" || tcs[1].Turn != 1 || tcs[1].Status != "error" || *tcs[1].Output != want {
		t.Fatalf("tool_call = %+v", tcs)
	}
	if len(of[trace.Shell](t, recs)) != 1 {
		t.Error("the refused call ran a command")
	}
	if ex := only[trace.HarnessExit](t, recs); ex.Cause != "interrupted" {
		t.Errorf("harness_exit = %+v, want interrupted", ex)
	}
}

// TestInactivity is PROC-17 and PROC-16 under the test build's limits
// (PTEST-4): a harness silent past the window is interrupted, one that
// ignores SIGTERM is killed after the grace, and the task fails E-RUN-035.
func TestInactivity(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "", `{"runs":[{"steps":[{"ignore_term":true},{"spawn":30},{"sleep":"30s"}]}]}`)
	c.env = append(c.env, "MURMUR_TEST_HARNESS_LIMITS=inactivity=1s,grace=300ms")
	r, _, stderr, code := c.run(t, "wait")
	msg := "the harness produced neither a line of output nor a tool call for 1s and was killed"
	if res := result(t, r); code != 1 || res != "error: "+msg {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	if !strings.Contains(stderr, "error[E-RUN-035]: "+msg+"\n") {
		t.Errorf("stderr = %q, want E-RUN-035", stderr)
	}
	recs := records(t, r.RecordsDir)
	if ex := only[trace.HarnessExit](t, recs); ex.Cause != "inactivity" || ex.Signal == nil || *ex.Signal != "SIGKILL" {
		t.Errorf("harness_exit = %+v, want inactivity by SIGKILL after the grace", ex)
	}
	if f := only[trace.TaskFailed](t, recs); f.Cause != "harness_inactive" || f.Reason != msg {
		t.Errorf("task_failed = %+v", f)
	}
	spawned(t, c) // the group's sleep is gone too
}

// spawned fails unless every process the fake left in its group is gone.
func spawned(t testing.TB, c *hcap) {
	t.Helper()
	b, err := os.ReadFile(c.state("spawned"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Fields(string(b)) {
		if !gone(l) {
			t.Errorf("process %s the harness left in its group is still running", l)
		}
	}
}

// TestStderrIsNotActivity is HEV-10 and PROC-9: a harness that only writes
// stderr — a line every 200 ms, far inside the 1 s window, for 8 s — is
// silent for PROC-17 and is killed as one, its answer never read; what it
// wrote is in the records directory's logs/harness-1.log.
func TestStderrIsNotActivity(t *testing.T) {
	t.Parallel()
	steps := []string{`{"ignore_term":true}`}
	for i := range 40 {
		steps = append(steps, fmt.Sprintf(`{"stderr":"still thinking %d"}`, i), `{"sleep":"200ms"}`)
	}
	steps = append(steps, `{"answer":"too late"}`)
	c := newCap(t, "claude", "", "", `{"runs":[{"steps":[`+strings.Join(steps, ",")+`]}]}`)
	c.env = append(c.env, "MURMUR_TEST_HARNESS_LIMITS=inactivity=1s,grace=300ms")
	r, _, stderr, code := c.run(t, "wait")
	msg := "the harness produced neither a line of output nor a tool call for 1s and was killed"
	if res := result(t, r); code != 1 || res != "error: "+msg {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	recs := records(t, r.RecordsDir)
	if ex := only[trace.HarnessExit](t, recs); ex.Cause != "inactivity" {
		t.Errorf("harness_exit = %+v, want inactivity", ex)
	}
	log, err := os.ReadFile(filepath.Join(r.RecordsDir, "logs", "harness-1.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(log), "still thinking 0\n") {
		t.Errorf("logs/harness-1.log = %q, want the harness's stderr", log)
	}
}

// TestDoneCheckByResume is PROC-13 with done_check: an answer the check
// fails reopens the task by a resume of the same harness session whose
// prompt is the check's feedback; the second answer passes (LOOP-14).
func TestDoneCheckByResume(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "lifecycle:\n  done_check: {command: \"test -f done.txt\", limit: 1}\n", `{"runs":[
		{"steps":[{"answer":"I think it is done"}]},
		{"steps":[{"tool":{"name":"touch","args":{"command":"done.txt"}}},{"answer":"now it is done"}]}]}`)
	man, _ := os.ReadFile(filepath.Join(c.dir, "murmur.yaml"))
	c.write(t, "murmur.yaml", strings.Replace(string(man), "allow: [echo, sleep]", "allow: [echo, sleep, test, touch]", 1))
	r, _, stderr, code := c.run(t, "make done.txt")
	if res := result(t, r); code != 0 || res != "now it is done" {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	recs := records(t, r.RecordsDir)
	starts, sess := of[trace.HarnessStart](t, recs), of[trace.HarnessSession](t, recs)
	if len(starts) != 2 || starts[0].Mode != "new" || starts[1].Mode != "resume" || starts[1].PromptKind != "done_check" ||
		len(sess) != 2 || starts[1].HarnessSessionID == nil || *starts[1].HarnessSessionID != sess[0].HarnessSessionID {
		t.Fatalf("harness_start %+v, harness_session %+v", starts, sess)
	}
	want := "[done_check] `test -f done.txt` ended failed, exit code 1; its last output:\n"
	calls := c.calls(t)
	if len(calls) != 2 || calls[1].Stdin != want {
		t.Errorf("the resume's prompt = %q, want %q", calls[len(calls)-1].Stdin, want)
	}
	if a := calls[1].Argv; a[len(a)-2] != "--resume" || a[len(a)-1] != sess[0].HarnessSessionID {
		t.Errorf("the resume's argv = %q", a)
	}
	dc := of[trace.DoneCheck](t, recs)
	if len(dc) != 2 || dc[0].Outcome != "failed" || dc[1].Outcome != "passed" {
		t.Errorf("done_check = %+v", dc)
	}
	if ro := only[trace.TaskReopened](t, recs); ro.HookName != "done_check" || ro.ReopenNumber != 1 {
		t.Errorf("task_reopened = %+v", ro)
	}
}

// TestStatusAcrossRuns is PROC-19: session-status in a task's third run
// sums the tokens the runs reported, counts the run that reported none,
// turns used are the harness's closed turns, and context and the spend
// ceilings are what a harness leaves mur unable to know.
func TestStatusAcrossRuns(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "lifecycle:\n  keep_working: {limit: 2}\n", `{"runs":[
		{"steps":[{"answer":"first","usage":{"input":10,"output":5,"cached":2,"cache_write":1}}]},
		{"steps":[{"answer":"second"}]},
		{"steps":[{"tool":{"name":"session-status","args":{}}},{"answer":"third","usage":{"input":1,"output":1}}]}]}`)
	r, _, stderr, code := c.run(t, "go")
	if res := result(t, r); code != 0 || res != "third" {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	tc := only[trace.ToolCall](t, records(t, r.RecordsDir))
	var st struct {
		Turns struct {
			Used int `json:"used"`
			Cap  any `json:"cap"`
		} `json:"turns"`
		Context any            `json:"context"`
		Quota   any            `json:"quota"`
		Tokens  map[string]any `json:"tokens"`
		Spend   map[string]any `json:"spend"`
	}
	body := unfence(t, *tc.Output)
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("session-status %q: %v", body, err)
	}
	if st.Turns.Used != 2 || st.Turns.Cap != float64(10) || st.Context != "unknown" || st.Quota != nil {
		t.Errorf("session-status turns, context, quota: %s", body)
	}
	tok := st.Tokens
	if tok["input"] != float64(10) || tok["output"] != float64(5) || tok["cached"] != float64(2) || tok["cache_write"] != float64(1) ||
		tok["unreported_calls"] != float64(1) {
		t.Errorf("session-status tokens = %v (%s)", tok, body)
	}
	if st.Spend["tokens"] != float64(15) || st.Spend["ceiling"] != "none" || st.Spend["machine"] != "none" {
		t.Errorf("session-status spend = %v (%s)", st.Spend, body)
	}
}

// TestHarnessCompactionRecorded: Claude Code's stream saying it compacted
// its own conversation (system compact_boundary) is a compaction record of
// source harness, naming the harness, the trigger and its count before,
// at the turn it came after; mur trace show lists it.
func TestHarnessCompactionRecorded(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "", `{"runs":[{"steps":[
		{"tool":{"name":"echo","args":{"command":"one"}}},
		{"raw":"{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"session_id\":\"s\",\"uuid\":\"u\",\"compact_metadata\":{\"trigger\":\"auto\",\"pre_tokens\":155331}}"},
		{"tool":{"name":"echo","args":{"command":"two"}}},
		{"answer":"done"}]}]}`)
	r, _, stderr, code := c.run(t, "compact")
	if code != 0 {
		t.Fatalf("mur run = %d, stderr %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	cp := only[trace.Compaction](t, recs)
	want := trace.Compaction{Turn: 1, TaskID: cp.TaskID, HookName: "claude", TokensBefore: 155331, TokensBeforeSource: "harness", Source: "harness", Trigger: "auto"}
	if cp != want || cp.TaskID == "" {
		t.Errorf("compaction = %+v, want %+v", cp, want)
	}
	cmd := exec.Command(mur, "trace", "show", r.SessionID)
	cmd.Dir, cmd.Env = c.dir, testmur.Env(c.home)
	out, errOut, code := testmur.Exec(t, cmd)
	if code != 0 || !strings.Contains(out, "  turn 1  claude compacted its own conversation (auto)  155,331 tokens before\n") {
		t.Errorf("mur trace show = %d\n%s%s", code, out, errOut)
	}
}
