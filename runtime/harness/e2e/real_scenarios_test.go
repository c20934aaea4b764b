package e2e

import (
	"strings"
	"testing"

	anthropic "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	openai "github.com/murmur-go/mur/runtime/driver/openai/fake"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestRealClaudeBash is PTEST-8 (a): the real Claude Code calls bash
// through the bridge — tool_call and shell recorded, the http loop's text
// in the model's next request — then session-status shows the five-hour
// and seven-day windows; no W-SEC-031; the version is the tested one.
func TestRealClaudeBash(t *testing.T) {
	t.Parallel()
	c, fake := realClaude(t, "bash", "", "")
	first := anthropic.Uses(anthropic.ToolUse{Name: "mcp__mur__bash", Input: `{"command":"echo hi from bash"}`})
	first.Header = rateLimits()
	fake.Enqueue(first, anthropic.Uses(anthropic.ToolUse{Name: "mcp__mur__session-status", Input: `{}`}), anthropic.Text("ANSWER-A"))
	r, _, stderr, code := c.run(t, "run a command")
	if res := result(t, r); code != 0 || res != "ANSWER-A" || strings.Contains(stderr, "W-SEC-031") {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	recs := records(t, r.RecordsDir)
	tcs := of[trace.ToolCall](t, recs)
	if len(tcs) != 2 || tcs[0].ToolName != "bash" || tcs[0].Status != "ok" || tcs[1].ToolName != "session-status" {
		t.Fatalf("tool_call = %+v", tcs)
	}
	if sh := only[trace.Shell](t, recs); sh.Binary != "bash" || sh.Command != "echo hi from bash" || sh.ExitCode != 0 {
		t.Errorf("shell = %+v", sh)
	}
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests to the fake, want 3", len(reqs))
	}
	// BRG-5: the model read mur's text (Claude Code may add notices of its own, BRG-9).
	if got := lastUser(t, reqs[1]); !strings.Contains(got, *tcs[0].Output) {
		t.Errorf("the model got %q, which does not hold mur's tool result %q", got, *tcs[0].Output)
	}
	if q := strings.Join(quotaOf(t, *tcs[1].Output), ","); q != "five-hour,seven-day" {
		t.Errorf("session-status quota = %s, want five-hour,seven-day (HEV-6)", q)
	}
	if st := only[trace.HarnessStart](t, recs); st.VersionTested == nil || !*st.VersionTested {
		t.Errorf("harness_start = %+v, want version_tested true", st)
	}
	if s := only[trace.HarnessSession](t, recs); s.Auth != "subscription" {
		t.Errorf("harness_session = %+v", s)
	}
	noFailures(t, fake.Failures())
}

// TestRealCodexKeepWorking is PTEST-8 (b): the real Codex CLI makes a tool
// call, then keep_working (limit 1) resumes the same thread, and each
// run's tokens are its own, from codex's running totals.
func TestRealCodexKeepWorking(t *testing.T) {
	t.Parallel()
	c, fake := realCodex(t, "", "lifecycle:\n  keep_working: {limit: 1, message: Look again.}\n")
	u := &openai.Usage{PromptTokens: 11, CompletionTokens: 7}
	fake.Enqueue(openai.Reply{ToolCalls: []openai.ToolCall{{Name: "echo", Namespace: "mcp__mur", Arguments: `{"command":"codex was here"}`}}, Usage: u},
		openai.Reply{Text: "FIRST", Usage: u}, openai.Reply{Text: "SECOND", Usage: u})
	r, _, stderr, code := c.run(t, "work twice")
	if res := result(t, r); code != 0 || res != "SECOND" {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	recs := records(t, r.RecordsDir)
	starts, sess := of[trace.HarnessStart](t, recs), of[trace.HarnessSession](t, recs)
	if len(starts) != 2 || starts[0].Mode != "new" || starts[1].Mode != "resume" || starts[1].PromptKind != "keep_working" ||
		len(sess) != 2 || *starts[1].HarnessSessionID != sess[0].HarnessSessionID || sess[1].HarnessSessionID != sess[0].HarnessSessionID {
		t.Fatalf("harness_start %+v, harness_session %+v", starts, sess)
	}
	exits := of[trace.HarnessExit](t, recs)
	if len(exits) != 2 || exits[0].InputTokens == nil || *exits[0].InputTokens != 22 || *exits[0].OutputTokens != 14 ||
		exits[1].InputTokens == nil || *exits[1].InputTokens != 11 || *exits[1].OutputTokens != 7 {
		t.Errorf("harness_exit = %+v, want 22/14 then 11/7 (HEV-5)", exits)
	}
	if tc := only[trace.ToolCall](t, recs); tc.ToolName != "echo" || tc.Status != "ok" || tc.ToolCallID == nil || !strings.HasPrefix(*tc.ToolCallID, "call_fake_") {
		t.Errorf("tool_call = %+v", tc)
	}
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	its := reqs[2].Decoded.Items()
	if last := its[len(its)-1]; last.Role != "user" || last.Text() != "Look again." {
		t.Errorf("the resume's last input item = %+v %q, want the keep-working message", last, last.Text())
	}
	noFailures(t, fake.Failures())
}
