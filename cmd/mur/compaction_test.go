package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	anthropicfake "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
)

// longTask is a task of turns tool calls, each printing about 2.4k tokens
// (seq n n+1900), on the openai fake with a window of window tokens
// (context.max_tokens the same, max_tokens 1024: a budget of window − 1024,
// compaction at 0.8 of it, so a turn's tool output fits the headroom); the
// fake refuses a request past its window as OpenAI does. The summary call
// (no tools offered) is answered summary (nil: a fixed text).
type longTask struct {
	turns     int
	window    int64
	artifacts string // the manifest's artifacts block, if any
	summary   *fake.Reply
	hooks     map[string]string // hook.sh of hooks installed with mur install -g, bound to on-compaction
}

// compactionRun runs a 40-turn long task in a 16000-token window.
func compactionRun(t *testing.T, turns int, artifacts string) (*fake.Server, string, int, string) {
	return longTask{turns: turns, window: 16000, artifacts: artifacts}.run(t)
}

// run runs the task and returns the fake, the records directory, mur's
// exit and its output.
func (lt longTask) run(t *testing.T) (*fake.Server, string, int, string) {
	t.Helper()
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test", ContextWindow: lt.window})
	t.Cleanup(srv.Close)
	summary := fake.Text("the agent has listed numbers; keep going")
	if lt.summary != nil {
		summary = *lt.summary
	}
	var mu sync.Mutex
	agent := 0
	srv.SetHandler(func(r fake.Request) fake.Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(r.Decoded.Tools) == 0 {
			return summary
		}
		agent++
		if agent > lt.turns {
			return fake.Text("counted to the end")
		}
		return fake.Calls(fake.ToolCall{Name: "bash", Arguments: fmt.Sprintf(`{"command":"seq %d %d"}`, agent, agent+1900)})
	})
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": fmt.Sprintf("name: long\nversion: \"1.0.0\"\ncontext:\n  max_tokens: %d\n", lt.window) + lt.artifacts +
			fmt.Sprintf("inference:\n  max_turns: %d\n  max_tokens: 1024\n", lt.turns+10) +
			"  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + srv.URL +
			"\n    api_key: ${TEST_OPENAI_KEY}\n  compaction: {threshold: 0.8, dump_summaries: true}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	})
	for name, script := range lt.hooks {
		installCompactionHook(t, e, name, script)
	}
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "list numbers")
	return srv, sessionRecords(t, e), code, stdout + stderr
}

// installCompactionHook installs a hook artifact bound to on-compaction
// with replace-context into e's global store.
func installCompactionHook(t *testing.T, e *runEnv, name, script string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := "name: " + name + "\nversion: 1.0.0\nruntime: hook\nimplementation: native\ncommand: hook.sh\nbinding: on-compaction\ncommit_policy: replace-context\n"
	for file, body := range map[string]string{"murmur.yaml": manifest, "hook.sh": script} {
		if err := os.WriteFile(filepath.Join(src, file), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(murBin, "install", "-g", src)
	cmd.Dir, cmd.Env = filepath.Dir(src), []string{"PATH=" + os.Getenv("PATH"), "MURMUR_HOME=" + e.home, "HOME=" + e.home}
	if _, errOut, code := testmur.Exec(t, cmd); code != 0 {
		t.Fatalf("mur install -g %s = %d: %s", name, code, errOut)
	}
}

// squashHook is an on-compaction hook whose body (shell: $line is the
// request, $id its id, $call the id of the turn's open tool call, reply
// prints an answer) decides.
func squashHook(body string) string {
	return `#!/bin/sh
reply() { printf '{"id":%s,%s}\n' "$id" "$1"; }
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/')
  call=$(printf '%s' "$line" | sed 's/.*id":"\(call_fake_[0-9]*_0\)".*/\1/')
` + body + `done
`
}

// squashed is the replacement squash answers: the task restated, and the
// turn's open call (id $call) kept unless keepCall is false.
func squashed(keepCall bool) string {
	v := `{"role":"user","blocks":[{"type":"text","text":"list numbers; squash kept this"}]}`
	if keepCall {
		v += `,{"role":"assistant","blocks":[{"type":"tool_use","id":"'"$call"'","name":"bash","input":{"command":"seq"}}]}`
	}
	return `  reply '"answer":"replace-context","value":[` + v + `]'
`
}

// compactArtifact declares the built-in compactor.
const compactArtifact = "artifacts:\n  - {name: murmur-hook-compact, version: 1.0.0, runtime: hook}\n"

// recordsOf returns the trace records of one event type.
func recordsOf(t *testing.T, dir, eventType string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r map[string]any
		if json.Unmarshal(sc.Bytes(), &r) == nil && r["event_type"] == eventType {
			out = append(out, r)
		}
	}
	return out
}

// TestCompactionKeepsUnderBudget: with murmur-hook-compact declared, a
// 40-turn task whose tool outputs would fill the window four times over
// completes; every request the agent sends stays under the input budget
// (mur's estimate, ceil(bytes/4)), each compaction is a record with the
// check's figures, and its summary is in out/compaction-summaries.jsonl.
func TestCompactionKeepsUnderBudget(t *testing.T) {
	srv, recs, code, out := compactionRun(t, 40, compactArtifact)
	if code != 0 || !strings.Contains(out, "counted to the end") {
		t.Fatalf("exit %d, output %q", code, out)
	}
	const budget = 16000 - 1024
	for i, r := range srv.Requests() {
		if tokens := (len(r.Body) + 3) / 4; tokens > budget {
			t.Errorf("request %d: %d tokens, over the budget %d", i, tokens, budget)
		}
	}
	cs := recordsOf(t, recs, "compaction")
	if len(cs) < 3 {
		t.Fatalf("compaction records = %d, want several", len(cs))
	}
	for _, c := range cs {
		before, after := c["tokens_before"].(float64), c["tokens_after"].(float64)
		if before < 0.8*budget || after >= before || c["hook_name"] != "murmur-hook-compact" || c["tokens_before_source"] != "estimate" {
			t.Errorf("compaction = %v", c)
		}
	}
	if d := recordsOf(t, recs, "compaction_declined"); len(d) != 0 {
		t.Errorf("declined = %v", d)
	}
	b, err := os.ReadFile(filepath.Join(recs, "out", "compaction-summaries.jsonl"))
	if err != nil || strings.Count(string(b), "\n") != len(cs) || !strings.HasPrefix(string(b), fmt.Sprintf(`{"turn":%v,"tokens_before":%v,"tokens_after":%v,"summary":"the agent has listed numbers; keep going"}`+"\n", cs[0]["turn"], cs[0]["tokens_before"], cs[0]["tokens_after"])) {
		t.Errorf("summaries = %s (%v)", b, err)
	}
}

// TestCompactionDeclinedWithoutHook: with no compaction hook declared the
// check fires and declines (no_hook_replacement), the conversation grows
// past the window, and the provider's refusal ends the task failed with
// its own error: OpenAI's 400 context_length_exceeded.
func TestCompactionDeclinedWithoutHook(t *testing.T) {
	srv, recs, code, out := compactionRun(t, 12, "")
	d := recordsOf(t, recs, "compaction_declined")
	if len(d) == 0 || d[0]["reason"] != "no_hook_replacement" {
		t.Fatalf("declined = %v", d)
	}
	if log, err := os.ReadFile(filepath.Join(recs, "logs", "bootstrap.log")); err != nil || strings.Count(string(log), "no hook returned replace-context\n") != len(d) {
		t.Errorf("bootstrap.log = %q (%v), want a line per decline", log, err)
	}
	if c := recordsOf(t, recs, "compaction"); len(c) != 0 {
		t.Errorf("compaction = %v", c)
	}
	reqs := srv.Requests()
	input := fake.Tokens(reqs[len(reqs)-1].Body)
	want := fmt.Sprintf(`error: openai endpoint answered HTTP 400: {"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 16000 tokens. However, you requested %d tokens (%d in the messages, 1024 in the completion). Please reduce the length of the messages or completion.","param":"messages","type":"invalid_request_error"}}`+"\nstatus:  failed\n", input+1024, input)
	if code == 0 || input+1024 <= 16000 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, last request %d tokens, output %q; want %q", code, input, out, want)
	}
	if strings.Contains(out, "counted to the end") {
		t.Errorf("the task answered: %q", out)
	}
	ends := recordsOf(t, recs, "session_end")
	if len(ends) != 1 || ends[0]["exit_status"] != "failed" {
		t.Errorf("session_end = %v", ends)
	}
}

// TestCompaction200Turns32k: a 200-turn task whose tool outputs total
// about 480k tokens, in a 32000-token window the fake enforces, completes
// with the right answer through the built-in compactor: no request is
// refused or over the budget (the window less max_tokens), and every
// compaction is a record — about one every nine turns. Without the
// compactor the same task fails on the provider's refusal.
func TestCompaction200Turns32k(t *testing.T) {
	srv, recs, code, out := longTask{turns: 200, window: 32000, artifacts: compactArtifact}.run(t)
	if code != 0 || !strings.Contains(out, "counted to the end") {
		t.Fatalf("exit %d, output %q", code, out)
	}
	const budget = 32000 - 1024
	reqs := srv.Requests()
	agent := 0
	for i, r := range reqs {
		if tokens := fake.Tokens(r.Body); tokens > budget {
			t.Errorf("request %d: %d tokens, over the budget %d", i, tokens, budget)
		}
		if len(r.Decoded.Tools) > 0 {
			agent++
		}
	}
	cs := recordsOf(t, recs, "compaction")
	if agent != 201 || len(cs) < 15 || len(reqs) != agent+len(cs) {
		t.Errorf("agent requests %d (want 201), compactions %d (want 15 or more), requests %d", agent, len(cs), len(reqs))
	}
	if f := srv.Failures(); len(f) > 0 {
		t.Errorf("bad requests: %v", f)
	}
	if d := recordsOf(t, recs, "compaction_declined"); len(d) != 0 {
		t.Errorf("declined = %v", d)
	}
	t.Logf("%d requests, %d compactions", len(reqs), len(cs))
	_, _, code, out = longTask{turns: 200, window: 32000}.run(t)
	if code == 0 || !strings.Contains(out, `"code":"context_length_exceeded"`) {
		t.Errorf("without compaction: exit %d, output %q; want the provider's refusal", code, out)
	}
}

// TestCompactionHookFailed: the built-in compactor's summary call refused
// ends the attempt failed with the refusal, and no compaction is written.
func TestCompactionHookFailed(t *testing.T) {
	refused := fake.Status(400, "summary refused")
	_, recs, code, out := longTask{turns: 40, window: 16000, artifacts: compactArtifact, summary: &refused}.run(t)
	want := `error: compaction hook failed: openai endpoint answered HTTP 400: {"error":{"code":null,"message":"summary refused","type":"fake_error"}}` + "\nstatus:  failed\n"
	if code == 0 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, output %q; want %q", code, out, want)
	}
	if c := recordsOf(t, recs, "compaction"); len(c) != 0 {
		t.Errorf("compaction = %v", c)
	}
	ends := recordsOf(t, recs, "session_end")
	if len(ends) != 1 || ends[0]["exit_status"] != "failed" {
		t.Errorf("session_end = %v", ends)
	}
}

// TestCompactionAnthropicProviderCounts: the same long task on the
// anthropic fake, which reports its own input count (ceil(bytes/4) of the
// body it received) in usage: the check measures by it (tokens_before_source
// actual), every request the fake checks is well formed and under the
// budget, and the task completes.
func TestCompactionAnthropicProviderCounts(t *testing.T) {
	srv := anthropicfake.New(anthropicfake.Config{APIKey: "sk-ant", ContextWindow: 16000})
	defer srv.Close()
	var mu sync.Mutex
	agent := 0
	srv.SetHandler(func(r anthropicfake.Request) anthropicfake.Reply {
		mu.Lock()
		defer mu.Unlock()
		usage := &anthropicfake.Usage{InputTokens: anthropicfake.Tokens(r.Body), OutputTokens: 20}
		if len(r.Decoded.Tools) == 0 {
			return anthropicfake.Reply{Text: "the agent has listed numbers; keep going", Usage: usage}
		}
		agent++
		if agent > 40 {
			return anthropicfake.Reply{Text: "counted to the end", Usage: usage}
		}
		return anthropicfake.Reply{ToolUses: []anthropicfake.ToolUse{{Name: "bash", Input: fmt.Sprintf(`{"command":"seq %d %d"}`, agent, agent+1900)}}, Usage: usage}
	})
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: long\nversion: \"1.0.0\"\ncontext:\n  max_tokens: 16000\nartifacts:\n  - {name: murmur-hook-compact, version: 1.0.0, runtime: hook}\n" +
			"inference:\n  max_turns: 100\n  max_tokens: 1024\n  driver:\n    kind: anthropic\n    model: claude-test\n    endpoint: " + srv.URL +
			"\n    api_key: ${TEST_ANTHROPIC_KEY}\n  compaction: {threshold: 0.8}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		".env": "TEST_ANTHROPIC_KEY=sk-ant\n",
	})
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "list numbers")
	if code != 0 || !strings.Contains(stdout, "counted to the end") {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	if f := srv.Failures(); len(f) > 0 {
		t.Errorf("bad requests: %v", f)
	}
	for i, r := range srv.Requests() {
		if tokens := (len(r.Body) + 3) / 4; tokens > 16000-1024 {
			t.Errorf("request %d: %d tokens, over the budget", i, tokens)
		}
	}
	cs := recordsOf(t, sessionRecords(t, e), "compaction")
	if len(cs) < 3 {
		t.Fatalf("compaction records = %d, want several", len(cs))
	}
	for _, c := range cs {
		if c["tokens_before_source"] != "actual" {
			t.Errorf("compaction = %v", c)
		}
	}
}

// squashArtifact declares the squash hook, with a 1 s deadline.
const squashArtifact = "artifacts:\n  - {name: squash, version: 1.0.0, runtime: hook, capabilities: {limits: {deadline_seconds: 1}}}\n"

// TestCompactionExternalHook: a hook bound to on-compaction with
// replace-context replaces the conversation with what it answers — the
// next request carries it — and the compaction record names it; the task
// completes with every request under budget.
func TestCompactionExternalHook(t *testing.T) {
	srv, recs, code, out := longTask{turns: 30, window: 16000, artifacts: squashArtifact,
		hooks: map[string]string{"squash": squashHook(squashed(true))}}.run(t)
	if code != 0 || !strings.Contains(out, "counted to the end") {
		t.Fatalf("exit %d, output %q", code, out)
	}
	cs := recordsOf(t, recs, "compaction")
	if len(cs) < 3 {
		t.Fatalf("compaction records = %v, want several", cs)
	}
	for _, c := range cs {
		if c["hook_name"] != "squash" || c["tokens_after"].(float64) >= c["tokens_before"].(float64) {
			t.Errorf("compaction = %v", c)
		}
	}
	kept := 0
	for i, r := range srv.Requests() {
		if tokens := fake.Tokens(r.Body); tokens+1024 > 16000 {
			t.Errorf("request %d: %d tokens, over the budget", i, tokens)
		}
		if r.Decoded.Messages[1].Text() == "list numbers; squash kept this" {
			kept++
		}
	}
	if kept == 0 {
		t.Error("no request carried the hook's replacement")
	}
	if _, err := os.Stat(filepath.Join(recs, "out", "compaction-summaries.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a hook's replacement has no summary to dump: %v", err)
	}
}

// TestCompactionHookFault: an on-compaction hook that exits, writes
// garbage, outlives its deadline, answers another arm or replaces the
// conversation with nothing ends the attempt failed — a failed
// compactor leaves a conversation known to be over budget — with the
// fault's text after "compaction hook failed: <hook>:", a
// hook_dispatch_error, and no compaction.
func TestCompactionHookFault(t *testing.T) {
	for _, tc := range []struct{ name, body, reason, arm string }{
		{"crash", "  exit 3\n", "the hook exited (exit code 3) without answering", "error"},
		{"garbage", "  echo 'not json at all'\n", "the hook's output could not be read: not a JSON object", "error"},
		{"hang", "  sleep 30\n", "the hook did not answer within 1 s", "timeout"},
		{"wrong-arm", "  reply '\"answer\":\"deny\",\"reason\":\"no\"'\n", "the hook answered 'deny', which on-compaction does not honor", "deny"},
		{"empty", "  reply '\"answer\":\"replace-context\",\"value\":[]'\n", "the hook answered replace-context without messages", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, recs, code, out := longTask{turns: 30, window: 16000, artifacts: squashArtifact,
				hooks: map[string]string{"squash": squashHook(tc.body)}}.run(t)
			want := "error: compaction hook failed: squash: " + tc.reason + "\nstatus:  failed\n"
			if code == 0 || !strings.Contains(out, want) {
				t.Fatalf("exit %d, output %q; want %q", code, out, want)
			}
			if c := recordsOf(t, recs, "compaction"); len(c) != 0 {
				t.Errorf("compaction = %v", c)
			}
			errs := recordsOf(t, recs, "hook_dispatch_error")
			if tc.arm == "" && len(errs) != 0 || tc.arm != "" && len(errs) != 1 || len(errs) == 1 && (errs[0]["hook_name"] != "squash" || errs[0]["event"] != "on-compaction" || errs[0]["arm"] != tc.arm || errs[0]["reason"] != tc.reason) {
				t.Errorf("hook_dispatch_error = %v", errs)
			}
			ends := recordsOf(t, recs, "session_end")
			if len(ends) != 1 || ends[0]["exit_status"] != "failed" {
				t.Errorf("session_end = %v", ends)
			}
		})
	}
}

// TestCompactionDeclinedUnpaired: a replacement that drops the turn's
// open tool call is refused — compaction_declined unresolved_tool_call
// with the check's figure — and the task goes on with its conversation as
// it was, over the budget until the provider refuses it.
func TestCompactionDeclinedUnpaired(t *testing.T) {
	srv, recs, code, out := longTask{turns: 30, window: 16000, artifacts: squashArtifact,
		hooks: map[string]string{"squash": squashHook(squashed(false))}}.run(t)
	d := recordsOf(t, recs, "compaction_declined")
	if len(d) == 0 || d[0]["reason"] != "unresolved_tool_call" || d[0]["tokens"].(float64) < 0.8*(16000-1024) {
		t.Fatalf("declined = %v", d)
	}
	if log, err := os.ReadFile(filepath.Join(recs, "logs", "bootstrap.log")); err != nil || strings.Count(string(log), "compacted result has an unresolved tool_call\n") != len(d) {
		t.Errorf("bootstrap.log = %q (%v), want a line per decline", log, err)
	}
	if c := recordsOf(t, recs, "compaction"); len(c) != 0 {
		t.Errorf("compaction = %v", c)
	}
	for _, r := range srv.Requests() {
		if r.Decoded.Messages[1].Text() == "list numbers; squash kept this" {
			t.Fatal("a request carried the refused replacement")
		}
	}
	if code == 0 || !strings.Contains(out, `"code":"context_length_exceeded"`) {
		t.Errorf("exit %d, output %q; want the provider's refusal", code, out)
	}
}

// TestCompactionOnPrimary_SWD2: after the agent switches to an alternate,
// its turns go there but the built-in compactor's summary calls stay on
// the primary choice, with inference.compaction.model when set.
func TestCompactionOnPrimary_SWD2(t *testing.T) {
	primary := fake.New(fake.Config{APIKey: "sk-test", ContextWindow: 16000})
	defer primary.Close()
	local := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-local", ContextWindow: 16000})
	defer local.Close()
	var mu sync.Mutex
	agent := 0
	primary.SetHandler(func(r fake.Request) fake.Reply {
		if len(r.Decoded.Tools) == 0 {
			return fake.Text("the agent has listed numbers; keep going")
		}
		return fake.Calls(fake.ToolCall{Name: "switch-driver", Arguments: `{"driver":"local"}`})
	})
	local.SetHandler(func(r fake.Request) fake.Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(r.Decoded.Tools) == 0 {
			return fake.Text("summarised on the wrong choice")
		}
		agent++
		if agent > 20 {
			return fake.Text("counted to the end")
		}
		return fake.Calls(fake.ToolCall{Name: "bash", Arguments: fmt.Sprintf(`{"command":"seq %d %d"}`, agent, agent+1900)})
	})
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: long\nversion: \"1.0.0\"\ncontext:\n  max_tokens: 16000\n" + compactArtifact +
			"inference:\n  max_turns: 40\n  max_tokens: 1024\n  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + primary.URL +
			"\n    api_key: ${TEST_OPENAI_KEY}\n  alternates:\n    - {name: local, kind: openai, model: gpt-local, endpoint: '" + local.URL + "', api_key: '${TEST_OPENAI_KEY}'}\n" +
			"  compaction: {threshold: 0.8, model: gpt-small}\ncontrol:\n  agent_settings: [inference.driver]\ncapabilities:\n  shell:\n    allow: [bash]\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	})
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "list numbers")
	if code != 0 || !strings.Contains(stdout, "counted to the end") {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	cs := recordsOf(t, sessionRecords(t, e), "compaction")
	summaries := 0
	for _, r := range primary.Requests() {
		if len(r.Decoded.Tools) == 0 {
			summaries++
			if r.Decoded.Model != "gpt-small" {
				t.Errorf("summary call model %q, want inference.compaction.model", r.Decoded.Model)
			}
		}
	}
	for _, r := range local.Requests() {
		if len(r.Decoded.Tools) == 0 {
			t.Error("a summary call went to the alternate")
		}
	}
	if len(cs) == 0 || summaries != len(cs) || len(primary.Requests()) != 1+len(cs) {
		t.Errorf("compactions %d, summary calls on primary %d, primary requests %d", len(cs), summaries, len(primary.Requests()))
	}
}

// TestCompactionSpendCeiling_LOOP18: the built-in compactor's summary call
// refused by inference.max_session_tokens ends the task as a spend stop,
// not a failure: spend_ceiling_reached, the ceiling's text, exit status
// spend_ceiling_reached, and no compaction.
func TestCompactionSpendCeiling_LOOP18(t *testing.T) {
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test", ContextWindow: 16000})
	defer srv.Close()
	turn := func(usage int64, args string) fake.Reply {
		r := fake.Calls(fake.ToolCall{Name: "bash", Arguments: args})
		r.Usage = &fake.Usage{PromptTokens: usage, CompletionTokens: 20}
		return r
	}
	// 520 + 620 + 720 + 13,020 spent: the summary call's cap of 1,024 alone passes 15,000.
	srv.Enqueue(turn(500, `{"command":"echo a"}`), turn(600, `{"command":"echo b"}`), turn(700, `{"command":"echo c"}`), turn(13000, `{"command":"echo d"}`))
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: budget\nversion: \"1.0.0\"\ncontext:\n  max_tokens: 16000\n" + compactArtifact +
			"inference:\n  max_tokens: 1024\n  max_session_tokens: 15000\n  compaction: {threshold: 0.8}\n  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + srv.URL +
			"\n    api_key: ${TEST_OPENAI_KEY}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	})
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "echo four times")
	if code == 0 || !strings.Contains(stdout, "stopped: spend ceiling reached: ") || strings.Contains(stdout+stderr, "compaction hook failed") {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	recs := sessionRecords(t, e)
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("requests = %d, want the four turns and no summary call", n)
	}
	if sc := recordsOf(t, recs, "spend_ceiling_reached"); len(sc) != 1 || sc[0]["used"] != 14880.0 {
		t.Errorf("spend_ceiling_reached = %v", sc)
	}
	if c := recordsOf(t, recs, "compaction"); len(c) != 0 {
		t.Errorf("compaction = %v", c)
	}
	ends := recordsOf(t, recs, "session_end")
	if len(ends) != 1 || ends[0]["exit_status"] != "spend_ceiling_reached" {
		t.Errorf("session_end = %v", ends)
	}
}

// TestCompactionPromptFileAtLaunch: inference.compaction.system_prompt_file
// is read when the session launches — missing, the launch fails E-RUN-009
// before any inference call — and its text is the summary call's system
// prompt, verbatim.
func TestCompactionPromptFileAtLaunch(t *testing.T) {
	const prompt = "Keep every number the agent printed.\n"
	for _, present := range []bool{false, true} {
		srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test", ContextWindow: 16000})
		defer srv.Close()
		var mu sync.Mutex
		agent := 0
		srv.SetHandler(func(r fake.Request) fake.Reply {
			mu.Lock()
			defer mu.Unlock()
			if len(r.Decoded.Tools) == 0 {
				return fake.Text("the agent has listed numbers")
			}
			if agent++; agent > 8 {
				return fake.Text("counted to the end")
			}
			return fake.Calls(fake.ToolCall{Name: "bash", Arguments: fmt.Sprintf(`{"command":"seq %d %d"}`, agent, agent+1900)})
		})
		files := map[string]string{
			"murmur.yaml": "name: long\nversion: \"1.0.0\"\ncontext:\n  max_tokens: 16000\n" + compactArtifact +
				"inference:\n  max_tokens: 1024\n  compaction: {threshold: 0.8, system_prompt_file: compact.md}\n  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + srv.URL +
				"\n    api_key: ${TEST_OPENAI_KEY}\ncapabilities:\n  shell:\n    allow: [bash]\n",
			".env": "TEST_OPENAI_KEY=sk-test\n",
		}
		if present {
			files["compact.md"] = prompt
		}
		e := newRunEnv(t, files)
		stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "list numbers")
		if !present {
			if code == 0 || !strings.Contains(stderr, "error[E-RUN-009]") || !strings.Contains(stderr, "compact.md") || len(srv.Requests()) != 0 {
				t.Errorf("without the file: exit %d, stderr %q, %d requests", code, stderr, len(srv.Requests()))
			}
			continue
		}
		if code != 0 || !strings.Contains(stdout, "counted to the end") {
			t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
		}
		summaries := 0
		for _, r := range srv.Requests() {
			if len(r.Decoded.Tools) == 0 {
				summaries++
				if m := r.Decoded.Messages[0]; m.Role != "system" || m.Text() != prompt {
					t.Errorf("the summary call's first message = %s %q, want the file's text", m.Role, m.Text())
				}
			}
		}
		if summaries == 0 {
			t.Error("no summary call")
		}
	}
}
