package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/trace"
)

func TestHelloExample_8a(t *testing.T) {
	src := filepath.Join("..", "..", "examples", "hello")
	dir := t.TempDir()
	for _, f := range []string{"murmur.yaml", "script.yaml"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	results := &syncBuf{}
	s := startIn(t, prepareIn(t, dir, ptr("list the files"), nil), results, nil)
	res := s.Run()
	if res.ExitStatus != StatusOK || res.Err != nil {
		t.Fatalf("Run = %+v", res)
	}
	recs := readTrace(t, s)
	if got, want := types(recs), "session_start,task_start,inference,tool_call,shell,inference,task_end,session_end"; got != want {
		t.Errorf("trace = %s, want %s", got, want)
	}
	if tc := of[trace.ToolCall](t, recs)[0]; tc.ToolName != "bash" || tc.Status != "ok" {
		t.Errorf("tool_call = %+v", tc)
	}
	if te := of[trace.TaskEnd](t, recs)[0]; te.ExitStatus != "ok" {
		t.Errorf("task_end = %+v", te)
	}
	got := resultTxt(t, s)
	if !strings.HasPrefix(got, "Files:\n$ ls -1\nExit code: 0\nStdout:\n") || !strings.Contains(got, "murmur.yaml\nscript.yaml\n") {
		t.Errorf("result.txt = %q", got)
	}
	if results.String() != got+"\n" {
		t.Errorf("printed result = %q, want the result text and a newline", results.String())
	}
	b, err := os.ReadFile(filepath.Join(s.RuntimeDir(), "task.md"))
	if err != nil || string(b) != "list the files" {
		t.Errorf("task.md = %q, %v", b, err)
	}
	for _, d := range []string{s.RecordsDir(), s.RuntimeDir(), filepath.Join(s.RecordsDir(), "logs"), filepath.Join(s.RecordsDir(), "home")} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v; want 0700 (SES-3)", d, fi.Mode().Perm(), err)
		}
	}
	if _, err := os.Stat(filepath.Join(s.RuntimeDir(), "tools", "bash", "murmur.yaml")); err != nil {
		t.Errorf("bash not staged: %v", err)
	}
}

func TestMaxTurns_LOOP8(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "  max_turns: 2\ncapabilities:\n  shell:\n    allow: [bash]\n"), `script_version: 1
rules:
  - match: {always: true}
    repeat: true
    turns:
      - tool_calls: [{name: bash, input: {command: "echo again"}}]
`)
	s := startIn(t, prepareIn(t, dir, ptr("loop"), nil), nil, nil)
	res := s.Run()
	if res.ExitStatus != StatusMaxTurns || res.Text != "stopped: inference.max_turns (2) reached before the task finished" {
		t.Errorf("Run = %+v", res)
	}
	recs := readTrace(t, s)
	if n := len(of[trace.Inference](t, recs)); n != 2 {
		t.Errorf("inference lines = %d, want 2", n)
	}
	if n := len(of[trace.ToolCall](t, recs)); n != 1 {
		t.Errorf("tool_calls = %d, want 1: the last allowed call's tools are not run", n)
	}
	if got := resultTxt(t, s); got != res.Text {
		t.Errorf("result.txt = %q", got)
	}
}

func TestKeepWorking_LOOP13(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "lifecycle:\n  keep_working: {limit: 2}\n"), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, ptr("work"), nil)
	fd := &fakeDriver{reply: func(_ context.Context, n int, _ *driver.Request) (*driver.Response, error) {
		return textReply(fmt.Sprintf("answer %d", n)), nil
	}}
	l.Drivers["primary"] = fd
	s := startIn(t, l, nil, nil)
	res := s.Run()
	if res.ExitStatus != StatusOK {
		t.Fatalf("Run = %+v", res)
	}
	reqs := fd.requests()
	if len(reqs) != 3 {
		t.Fatalf("driver calls = %d, want 3", len(reqs))
	}
	const want = "Keep working on the task. When it is finished, reply with your complete final answer."
	for _, r := range reqs[1:] {
		if got := lastText(r); got != want {
			t.Errorf("keep-working message = %q, want %q", got, want)
		}
	}
	recs := readTrace(t, s)
	kw := of[trace.KeepWorking](t, recs)
	if len(kw) != 2 || kw[1].Used != 2 || kw[1].Left != 0 {
		t.Errorf("keep_working records = %+v", kw)
	}
	end := lines[trace.TaskEnd](recs)[0].Raw
	if !strings.Contains(string(end), `"keep_working":{"used":2,"stopped_by":"limit"}`) {
		t.Errorf("task_end = %s", end)
	}
	if got := resultTxt(t, s); got != "answer 2" {
		t.Errorf("result.txt = %q", got)
	}
}

func TestDoneCheckReopens_LOOP14(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, `capabilities:
  shell:
    allow: [bash]
lifecycle:
  done_check: {command: "bash -c 'echo checking; test -f done.txt'", limit: 1}
`), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, ptr("make done.txt"), nil)
	fd := &fakeDriver{reply: func(_ context.Context, n int, _ *driver.Request) (*driver.Response, error) {
		switch n {
		case 0:
			return textReply("I think it is done"), nil
		case 1:
			return toolReply("c1", "bash", `{"command":"touch done.txt"}`), nil
		}
		return textReply("now it is done"), nil
	}}
	l.Drivers["primary"] = fd
	s := startIn(t, l, nil, nil)
	if res := s.Run(); res.ExitStatus != StatusOK {
		t.Fatalf("Run = %+v", res)
	}
	reqs := fd.requests()
	want := "[done_check] `bash -c 'echo checking; test -f done.txt'` ended failed, exit code 1; its last output:\nchecking\n"
	if got := lastText(reqs[1]); got != want {
		t.Errorf("reopen message = %q, want %q", got, want)
	}
	recs := readTrace(t, s)
	dc := of[trace.DoneCheck](t, recs)
	if len(dc) != 2 || dc[0].Outcome != "failed" || dc[1].Outcome != "passed" {
		t.Errorf("done_check = %+v", dc)
	}
	ro := of[trace.TaskReopened](t, recs)
	if len(ro) != 1 || ro[0].HookName != "done_check" || ro[0].ReopenNumber != 1 {
		t.Errorf("task_reopened = %+v", ro)
	}
	if got := resultTxt(t, s); got != "now it is done" {
		t.Errorf("result.txt = %q", got)
	}
	b, _ := os.ReadFile(filepath.Join(s.RuntimeDir(), "task.md"))
	if !strings.Contains(string(b), "make done.txt\n\n# Reopen feedback\n\n[done_check]") {
		t.Errorf("task.md = %q", b)
	}
}

func TestDoneCheckLimitSpent_LOOP14(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, `capabilities:
  shell:
    allow: [bash]
lifecycle:
  done_check: {command: "bash -c 'echo no; exit 3'", limit: 1}
`), `script_version: 1
rules:
  - match: {always: true}
    repeat: true
    turns: [{text: "done"}]
`)
	s := startIn(t, prepareIn(t, dir, ptr("x"), nil), nil, nil)
	res := s.Run()
	// The command holds a ';': the reason is the whole heading, not cut there.
	reason := "done_check `bash -c 'echo no; exit 3'` ended failed, exit code 3"
	if want := "error: " + reason; res.ExitStatus != StatusFailed || res.Text != want {
		t.Errorf("Run = %+v, want failed %q", res, want)
	}
	recs := readTrace(t, s)
	tf := of[trace.TaskFailed](t, recs)
	if len(tf) != 1 || tf[0].Cause != "done_check" || tf[0].Reason != reason {
		t.Errorf("task_failed = %+v, want cause done_check, reason %q", tf, reason)
	}
	ro := of[trace.TaskReopened](t, recs)
	wantRO := "[done_check] `bash -c 'echo no; exit 3'` ended failed, exit code 3; its last output:"
	if len(ro) != 1 || ro[0].Reason != wantRO {
		t.Errorf("task_reopened = %+v, want reason %q", ro, wantRO)
	}
}

func TestSpendCeiling_LOOP18(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "  max_tokens: 100\n  max_session_tokens: 300\n"), `script_version: 1
rules:
  - match: {always: true}
    repeat: true
    turns: [{text: "hi", usage: {input: 100, output: 50}}]
`)
	l := prepareIn(t, dir, ptr("x"), func(o *Options) { o.Acceptance, o.AfterTask = "queue", "sleep" })
	results := &syncBuf{ch: make(chan string, 4)} // buffered: one write per ended task
	s := startIn(t, l, results, nil)
	done := make(chan Result, 1) // buffered: Run's goroutine never blocks
	go func() { done <- s.Run() }()
	// The first call (an estimated ≈150 input + 100 requested) is admitted
	// and spends 150 as the provider reports; a second task's call cannot fit:
	// 150 + ≈150 + 100 > 300.
	<-results.ch
	if _, err := s.Registry().Submit(launchProv(), userMsg("again")); err != nil {
		t.Fatal(err)
	}
	<-results.ch
	s.Stop(BySignal)
	res := <-done
	if res.ExitStatus != StatusSpendCeiling {
		t.Errorf("exit status = %q", res.ExitStatus)
	}
	recs := readTrace(t, s)
	sc := of[trace.SpendCeilingReached](t, recs)
	if len(sc) != 1 {
		t.Fatalf("spend_ceiling_reached = %+v", sc)
	}
	f := sc[0]
	if f.Limit != "session" || f.Ceiling != 300 || f.Used != 150 {
		t.Errorf("spend_ceiling_reached = %+v", f)
	}
	want := fmt.Sprintf("stopped: spend ceiling reached: session ceiling 300, used 150, this call needed %d; retrying will not get past it", f.Requested)
	if got := resultTxt(t, s); got != want {
		t.Errorf("result.txt = %q, want %q", got, want)
	}
	if n := len(of[trace.Inference](t, recs)); n != 1 {
		t.Errorf("inference lines = %d, want 1 (nothing sent past the ceiling)", n)
	}
}

// TestDoneCheckTimesOut_LOOP14: a check still running at timeout_secs (its
// shell waiting on a grandchild) is SIGKILLed and reads timed_out with the
// shell's exit code 137, and the run goes on to its end.
func TestDoneCheckTimesOut_LOOP14(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, `capabilities:
  shell:
    allow: [bash]
lifecycle:
  done_check: {command: "bash -c 'sleep 60 & wait'", limit: 0, timeout_secs: 1}
`), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, ptr("wait for the check"), nil)
	l.Drivers["primary"] = &fakeDriver{reply: func(context.Context, int, *driver.Request) (*driver.Response, error) {
		return textReply("done"), nil
	}}
	s := startIn(t, l, nil, nil)
	s.Run()
	dc := of[trace.DoneCheck](t, readTrace(t, s))
	if len(dc) != 1 || dc[0].Outcome != "timed_out" || dc[0].ExitCode == nil || *dc[0].ExitCode != 137 {
		t.Fatalf("done_check = %+v", dc)
	}
}
