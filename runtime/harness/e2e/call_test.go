package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestClaudeBridgedCall is one Claude Code run through the fake: the exact
// argv and environment (PROC-6, PROC-8), the prompt on stdin (PROC-5), a
// bridged call answered with the http loop's text (BRG-5), session-status
// through the bridge with the quota windows (HEV-6, PROC-19), the turns as
// inference records (HEV-3, HREC-2), the run's tokens (HEV-5, HREC-3) and
// the harness records (HREC-1), the run that completes with nothing
// outstanding ending the task with its answer (PROC-11), and session_start's
// process fields (HREC-4).
func TestClaudeBridgedCall(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "", `{"runs":[{"steps":[
		{"tool":{"name":"echo","args":{"command":"hello there"},"text":"I will echo."}},
		{"quota":{"status":"allowed","unifiedWindows":{"five_hour":{"status":"allowed","utilization":0.25,"resetsAt":1796168462},"seven_day":{"status":"allowed_warning","utilization":0.8,"resetsAt":1796251262}}}},
		{"tool":{"name":"session-status","args":{}}},
		{"answer":"DONE: echoed","usage":{"input":22,"output":14,"cached":3,"cache_write":2}}]}]}`)
	r, _, stderr, code := c.run(t, "say hello")
	if res := result(t, r); code != 0 || res != "DONE: echoed" || stderr != "" {
		t.Fatalf("mur run = %d, result %q, stderr %q", code, res, stderr)
	}
	calls := c.calls(t)
	if len(calls) != 1 {
		t.Fatalf("%d harness runs, want 1", len(calls))
	}
	h := filepath.Join(r.RecordsDir, "harness")
	want := []string{filepath.Join(filepath.Dir(c.dir), "bin", "claude"), "-p", "--output-format", "stream-json", "--verbose", "--tools", "",
		"--setting-sources", "", "--strict-mcp-config", "--mcp-config", filepath.Join(h, "mcp.json"), "--allowedTools", "mcp__mur",
		"--permission-mode", "dontAsk", "--system-prompt-file", filepath.Join(h, "system-prompt.md")}
	if got, _ := json.Marshal(calls[0].Argv); string(got) != mustJSON(want) {
		t.Errorf("argv = %s\nwant %s", got, mustJSON(want))
	}
	if got := strings.Join(calls[0].Env, ","); got != "HOME,PATH,FAKE_HARNESS_SCRIPT,ENABLE_TOOL_SEARCH,CLAUDE_CODE_TMPDIR" {
		t.Errorf("environment names = %s, want exactly env.allow's set names, ENABLE_TOOL_SEARCH (PROC-8) and a contained claude's CLAUDE_CODE_TMPDIR", got)
	}
	if want := "say hello\n\n[Session]\nsession: " + r.SessionID + "\ndoor: " + r.URL + "\nworkdir: " + r.Workdir; calls[0].Stdin != want {
		t.Errorf("stdin = %q, want %q", calls[0].Stdin, want)
	}

	recs := records(t, r.RecordsDir)
	st := only[trace.HarnessStart](t, recs)
	if st.Run != 1 || st.Mode != "new" || st.PromptKind != "task" || st.Harness != "claude-code" || st.Binary != want[0] ||
		st.Version == nil || *st.Version != "2.1.328 (Claude Code)" || st.VersionTested == nil || !*st.VersionTested ||
		strings.Join(st.ToolsOffered, ",") != "echo,sleep,session-status" || st.HarnessSessionID != nil {
		t.Errorf("harness_start = %+v", st)
	}
	ses := only[trace.HarnessSession](t, recs)
	if ses.Run != 1 || ses.Auth != "subscription" || !strings.HasPrefix(ses.HarnessSessionID, "fake-") {
		t.Errorf("harness_session = %+v", ses)
	}
	infs := of[trace.Inference](t, recs)
	if len(infs) != 3 || infs[0].Decision != "tool_call" || *infs[0].ToolName != "echo" || infs[0].HarnessTurnID != "msg_fake_1" ||
		infs[1].Decision != "tool_call" || *infs[1].ToolName != "session-status" || infs[2].Decision != "end_turn" || infs[2].ToolName != nil ||
		infs[0].Turn != 0 || infs[2].Turn != 2 {
		t.Errorf("inference = %+v", infs)
	}
	tcs := of[trace.ToolCall](t, recs)
	if len(tcs) != 2 || tcs[0].Turn != 0 || tcs[0].ToolCallID == nil || *tcs[0].ToolCallID != "toolu_fake_1" || tcs[0].Status != "ok" {
		t.Fatalf("tool_call = %+v", tcs)
	}
	// BRG-5: the http loop's text, fenced, shell notes included.
	if got := *tcs[0].Output; got != "<untrusted-content source=tool:echo>\n$ hello there\nExit code: 0\nStdout:\nhello there\n\nStderr:\n\n</untrusted-content>" {
		t.Errorf("echo's text = %q", got)
	}
	var report struct {
		Turns struct {
			Used int `json:"used"`
		} `json:"turns"`
		Context any `json:"context"`
		Quota   []struct {
			Name          string  `json:"name"`
			Used          float64 `json:"used"`
			ResetsAt      string  `json:"resets_at"`
			WindowMinutes int     `json:"window_minutes"`
			State         string  `json:"state"`
		} `json:"quota"`
	}
	body := unfence(t, *tcs[1].Output)
	if err := json.Unmarshal([]byte(body), &report); err != nil {
		t.Fatalf("session-status %q: %v", body, err)
	}
	q := report.Quota
	if report.Turns.Used != 1 || report.Context != "unknown" || len(q) != 2 || q[0].Name != "five-hour" || q[0].Used != 0.25 ||
		q[0].ResetsAt != "2026-12-01T23:41:02Z" || q[0].WindowMinutes != 300 || q[0].State != "ok" ||
		q[1].Name != "seven-day" || q[1].WindowMinutes != 10080 || q[1].State != "warning" {
		t.Errorf("session-status = %s", body)
	}
	ex := only[trace.HarnessExit](t, recs)
	if ex.Cause != "completed" || ex.ExitCode == nil || *ex.ExitCode != 0 || ex.Signal != nil || ex.Turns != 3 ||
		*ex.InputTokens != 22 || *ex.OutputTokens != 14 || *ex.CachedTokens != 3 || *ex.CacheWriteTokens != 2 {
		t.Errorf("harness_exit = %+v", ex)
	}
	end := only[trace.TaskEnd](t, recs)
	if end.Turns != 3 || end.InputTokens != 22 || end.OutputTokens != 14 || end.ToolCalls != 2 || end.ShellCalls != 1 {
		t.Errorf("task_end = %+v", end)
	}
	start := only[trace.SessionStart](t, recs)
	if start.Transport != "process" || start.Model != nil || start.CredentialSource != "none" || len(start.InferenceChoices) != 0 ||
		strings.Join(start.EffectiveGrants.EnvAllow, ",") != "HOME,PATH,FAKE_HARNESS_SCRIPT,FAKE_HARNESS_AUTH" {
		t.Errorf("session_start = %+v", start)
	}
	if got := strings.Join(types(recs), ","); got != "session_start,task_start,harness_start,harness_session,inference,tool_call,shell,inference,tool_call,session_status,inference,harness_exit,task_end,session_end" {
		t.Errorf("records = %s", got)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// unfence is a tool result's fenced body.
func unfence(t testing.TB, s string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, ">\n")
	body, _, ok2 := strings.Cut(rest, "\n</untrusted-content>")
	if !ok || !ok2 {
		t.Fatalf("not fenced: %q", s)
	}
	return body
}

// TestVerboseNamesHarness is PROC-20: mur run -v prints the harness and
// its binary where an http capsule prints its driver, and the answer and
// status as for any capsule (CLI-3).
func TestVerboseNamesHarness(t *testing.T) {
	t.Parallel()
	c := newCap(t, "codex", "", "", `{"runs":[{"steps":[{"answer":"fine"}]}]}`)
	out, stderr, code := execCmd(t, c.command("run", "-v", "--task", "go"))
	bin := filepath.Join(filepath.Dir(c.dir), "bin", "codex")
	if code != 0 || !strings.Contains(out, "\nharness: codex "+bin+"\n") || strings.Contains(out, "driver:") || !strings.HasSuffix(out, "\nfine\nstatus:  ok\n") {
		t.Errorf("mur run -v = %d\n%s\nstderr %s", code, out, stderr)
	}
}

// TestBridgedText is BRG-5 and tools.md NOTICE-3 [P]: what the harness
// reads from each tools/call is byte for byte the tool_call output the
// http loop writes — a refused unknown tool unfenced and isError, without
// the deadline notice; the first tool that ran carrying it, once; the next
// without it.
func TestBridgedText(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "lifecycle:\n  deadline_notice_secs: 3600\n", `{"runs":[{"steps":[
		{"tool":{"name":"nosuch","args":{}}},
		{"tool":{"name":"echo","args":{"command":"one"}}},
		{"tool":{"name":"echo","args":{"command":"two"}}},
		{"answer":"done"}]}]}`)
	cmd := c.command("run", "--json", "--deadline", "10m", "--task", "go")
	stdout, stderr, code := testmur.Exec(t, cmd)
	noneLeft(t, cmd.Process.Pid)
	var r readiness
	if first, _, _ := strings.Cut(stdout, "\n"); code != 0 || json.Unmarshal([]byte(first), &r) != nil {
		t.Fatalf("mur run = %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	recs := records(t, r.RecordsDir)
	tcs := of[trace.ToolCall](t, recs)
	got := c.results(t)
	if len(tcs) != 3 || len(got) != 3 {
		t.Fatalf("tool_call %+v, the harness read %+v", tcs, got)
	}
	for i, tc := range tcs {
		if got[i].Text != *tc.Output || got[i].IsError != (tc.Status == "error") {
			t.Errorf("call %d: the harness read %q (isError %v), tool_call has %q (%s)", i, got[i].Text, got[i].IsError, *tc.Output, tc.Status)
		}
	}
	const notice = "\nSession deadline: the runtime ends this session at "
	if !got[0].IsError || strings.Contains(got[0].Text, "Session deadline") || strings.HasPrefix(got[0].Text, "<untrusted-content") {
		t.Errorf("the unknown tool's answer = %+v, want an unfenced refusal without the notice", got[0])
	}
	if !strings.Contains(got[1].Text, notice) || strings.Contains(got[2].Text, "Session deadline") {
		t.Errorf("the notice: first echo %q, second %q; want it on the first only", got[1].Text, got[2].Text)
	}
	if n := only[trace.DeadlineNotice](t, recs); n.ToolName != "echo" {
		t.Errorf("deadline_notice = %+v", n)
	}
}
