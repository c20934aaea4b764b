package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/runtime/driver"
)

func user(text string) driver.Message {
	return driver.Message{ID: "msg_u", Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(text)}}
}

func assistant(blocks ...driver.Block) driver.Message {
	return driver.Message{ID: "msg_a", Role: driver.RoleAssistant, Blocks: blocks}
}

func toolMsg(results ...driver.Block) driver.Message {
	return driver.Message{ID: "msg_t", Role: driver.RoleTool, Blocks: results}
}

func mustParse(t *testing.T, src string) *Driver {
	t.Helper()
	s, err := Parse("script.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse() error = %v", err)
	}
	return New(s)
}

func complete(t *testing.T, d *Driver, msgs ...driver.Message) *driver.Response {
	t.Helper()
	resp, err := d.Complete(context.Background(), &driver.Request{Model: "scripted", Messages: msgs, MaxTokens: 100})
	if err != nil {
		t.Fatalf("Complete() error = %v", err)
	}
	return resp
}

func completeErr(t *testing.T, d *Driver, msgs ...driver.Message) error {
	t.Helper()
	resp, err := d.Complete(context.Background(), &driver.Request{Messages: msgs})
	if err == nil {
		t.Fatalf("Complete() = %+v, want an error", resp)
	}
	return err
}

// TestExampleScript replays DRV-7's example through capsule.md 8a's task.
func TestExampleScript(t *testing.T) {
	t.Parallel()
	s, err := Load(filepath.Join("testdata", "example.yaml"))
	if err != nil {
		t.Fatalf("Load(example) error = %v", err)
	}
	d := New(s)
	task := user("list the files")
	r0 := complete(t, d, task)
	if len(r0.Blocks) != 1 || r0.StopReason != driver.StopToolUse {
		t.Fatalf("turn 0 = %+v", r0)
	}
	call := r0.Blocks[0]
	if call.Type != driver.BlockToolUse || call.ID != "call_0_0" || call.Name != "bash" || string(call.Input) != `{"command":"ls -1"}` {
		t.Errorf("turn 0 call = %+v", call)
	}
	if r0.Usage != (driver.Usage{}) {
		t.Errorf("turn 0 usage = %+v, want none reported", r0.Usage)
	}
	if len(r0.RequestBody) == 0 || len(r0.RawBody) == 0 {
		t.Error("turn 0 lacks request or raw body")
	}
	result := "<untrusted-content source=tool:bash>\nREADME.md\nmain.go\n\n</untrusted-content>\n[shell] exit code 0"
	r1 := complete(t, d, task, assistant(call), toolMsg(driver.ToolResultBlock("call_0_0", result, false)))
	if got, want := r1.Text(), "Files:\nREADME.md\nmain.go\n"; got != want {
		t.Errorf("turn 1 text = %q, want %q", got, want)
	}
	if r1.StopReason != driver.StopEndTurn || len(r1.ToolUses()) != 0 {
		t.Errorf("turn 1 = %+v", r1)
	}
	err = completeErr(t, d, task, assistant(call), toolMsg(), assistant(driver.TextBlock("Files:")))
	if got, want := driver.Reason(err), "script exhausted after 2 turns"; got != want || driver.Cause(err) != driver.CauseDriverError {
		t.Errorf("turn 2 error = %q (%s), want %q", got, driver.Cause(err), want)
	}
	if got := complete(t, d, user("say hello")).Text(); got != "I can only list files." {
		t.Errorf("fallback text = %q", got)
	}
}

// TestRuleSelection covers DRV-7's match forms, order and the fenced task text.
func TestRuleSelection(t *testing.T) {
	t.Parallel()
	d := mustParse(t, `
script_version: 1
rules:
  - match: {regex: "^deploy (prod|staging)$"}
    turns: [{text: "regex"}]
  - match: {contains: "list"}
    turns: [{text: "contains"}]
  - match: {contains: "list files"}
    turns: [{text: "never: the earlier rule wins"}]
  - match: {always: true}
    turns: [{text: "always"}]
`)
	tests := []struct{ task, want string }{
		{"deploy prod", "regex"},
		{"please list files", "contains"},
		{"anything", "always"},
		{"<untrusted-content source=task:peer>\ndeploy staging\n</untrusted-content>", "regex"},
		{"LIST", "always"},
	}
	for _, tt := range tests {
		if got := complete(t, d, user(tt.task)).Text(); got != tt.want {
			t.Errorf("task %q picked %q, want %q", tt.task, got, tt.want)
		}
	}
	none := mustParse(t, "script_version: 1\nrules:\n  - match: {contains: x}\n    turns: [{text: y}]\n")
	err := completeErr(t, none, user("no match"))
	if got := driver.Reason(err); got != "no script rule matches the task" || driver.Cause(err) != driver.CauseDriverError {
		t.Errorf("no match error = %q", got)
	}
}

// TestMessageIDRule is match: {message_id_prefix: …}: it matches the
// messageId of the A2A message that started the task, whatever its text.
func TestMessageIDRule(t *testing.T) {
	t.Parallel()
	d := mustParse(t, `
script_version: 1
rules:
  - match: {message_id_prefix: "tck-complete-task"}
    turns: [{text: "completed"}]
  - match: {always: true}
    turns: [{text: "always"}]
`)
	for id, want := range map[string]string{"tck-complete-task-0f1e": "completed", "msg_01": "always", "": "always", "x-tck-complete-task": "always"} {
		resp, err := d.Complete(context.Background(), &driver.Request{Messages: []driver.Message{user("the same text")}, TaskMessageID: id})
		if err != nil || resp.Text() != want {
			t.Errorf("messageId %q picked %q (%v), want %q", id, resp.Text(), err, want)
		}
	}
	for _, bad := range []string{`{message_id_prefix: ""}`, `{message_id_prefix: "a", always: true}`} {
		if _, err := Parse("script.yaml", []byte("script_version: 1\nrules:\n  - match: "+bad+"\n    turns: [{text: y}]\n")); err == nil {
			t.Errorf("match %s loaded, want an error", bad)
		}
	}
}

// TestRepeatAndCursor checks the cursor counts assistant messages of any
// choice and repeat replays the last turn.
func TestRepeatAndCursor(t *testing.T) {
	t.Parallel()
	d := mustParse(t, "script_version: 1\nfallback:\n  repeat: true\n  turns: [{text: one}, {text: two}]\n")
	msgs := []driver.Message{user("t")}
	for i, want := range []string{"one", "two", "two", "two"} {
		r := complete(t, d, msgs...)
		if r.Text() != want {
			t.Errorf("turn %d = %q, want %q", i, r.Text(), want)
		}
		msgs = append(msgs, assistant(r.Blocks...), user("keep working"))
	}
}

// TestTurnKeys covers tool_calls ids, stop_reason, usage and the default input.
func TestTurnKeys(t *testing.T) {
	t.Parallel()
	d := mustParse(t, `
script_version: 1
fallback:
  turns:
    - text: thinking
      tool_calls:
        - {name: a}
        - {name: b, id: mine, input: {n: 3, f: 1.5, ok: true, none: null, list: [x, 2]}}
      stop_reason: pause_turn
      usage: {input: 10, output: 0, cached: 4}
`)
	r := complete(t, d, user("go"))
	if len(r.Blocks) != 3 || r.Blocks[0].Text != "thinking" {
		t.Fatalf("blocks = %+v", r.Blocks)
	}
	if b := r.Blocks[1]; b.ID != "call_0_0" || b.Name != "a" || string(b.Input) != "{}" {
		t.Errorf("call 0 = %+v", b)
	}
	if b := r.Blocks[2]; b.ID != "mine" || string(b.Input) != `{"f":1.5,"list":["x",2],"n":3,"none":null,"ok":true}` {
		t.Errorf("call 1 = %+v (%s)", b, b.Input)
	}
	if r.StopReason != "pause_turn" {
		t.Errorf("stop_reason = %q", r.StopReason)
	}
	u := r.Usage
	if u.Input == nil || *u.Input != 10 || u.Output == nil || *u.Output != 0 || u.Cached == nil || *u.Cached != 4 || u.CacheWrite != nil {
		t.Errorf("usage = %+v", u)
	}
}

// TestTemplates covers every DRV-7 template in text and nested input strings.
func TestTemplates(t *testing.T) {
	t.Parallel()
	d := mustParse(t, `
script_version: 1
fallback:
  repeat: true
  turns:
    - text: "task={{task}} result={{tool_result}} work={{work_id}} any={{member_answer}} rev={{member_answer:reviewer}} none={{member_answer:nobody}}"
      tool_calls: [{name: background-command, input: {work_id: "{{work_id}}", deep: [{q: "{{task}}!"}]}}]
`)
	const wrk1 = "wrk_0199a3f1c2d47e8ab5c6d7e8f9a0b1c2"
	const wrk2 = "wrk_0199a3f1c2d47e8ab5c6d7e8f9a0b1c3"
	continuation := "[call-member] call mcl_1 to reviewer ended completed:\n" +
		"<untrusted-content source=member:reviewer>\nlooks good\n</untrusted-content>\n\n" +
		"[call-member] call mcl_2 to coder ended completed:\n" +
		"<untrusted-content source=member:coder>\npatched\n</untrusted-content>\n\n" +
		"[call-member] Every call this task made has ended, and the answers are above."
	older := "<untrusted-content source=member:reviewer>\nold answer\n</untrusted-content>"
	msgs := []driver.Message{
		user("<untrusted-content source=task:peer>\nfix the bug\n</untrusted-content>"),
		assistant(driver.ToolUseBlock("c1", "bash", nil)),
		toolMsg(driver.ToolResultBlock("c1", "<untrusted-content source=tool:bash>\nstarted "+wrk1+" then "+wrk2+"\n</untrusted-content>\n[shell] moved to background", false)),
		user(older),
		user(continuation),
		assistant(driver.ToolUseBlock("c2", "session-status", nil)),
		toolMsg(driver.ToolResultBlock("c2", "tool 'x' is not in this session's inventory", true)),
	}
	r := complete(t, d, msgs...)
	want := "task=fix the bug result=tool 'x' is not in this session's inventory work=" + wrk2 +
		" any=patched rev=looks good none="
	if got := r.Text(); got != want {
		t.Errorf("text = %q\nwant   %q", got, want)
	}
	var input map[string]any
	if err := json.Unmarshal(r.ToolUses()[0].Input, &input); err != nil {
		t.Fatal(err)
	}
	if input["work_id"] != wrk2 || input["deep"].([]any)[0].(map[string]any)["q"] != "fix the bug!" {
		t.Errorf("input = %v", input)
	}
	// Absent values expand to "".
	r = complete(t, d, user("plain"))
	if got := r.Text(); got != "task=plain result= work= any= rev= none=" {
		t.Errorf("empty templates = %q", got)
	}
}

// TestErrorTurns covers `error:` and `status: 401` (DRV-7, DRV-4).
func TestErrorTurns(t *testing.T) {
	t.Parallel()
	d := mustParse(t, `
script_version: 1
rules:
  - match: {contains: fail}
    turns: [{error: "upstream exploded"}]
  - match: {contains: key}
    turns: [{status: 401}]
`)
	err := completeErr(t, d, user("fail now"))
	if driver.Cause(err) != driver.CauseDriverError || driver.Reason(err) != "upstream exploded" {
		t.Errorf("error turn = %s: %q", driver.Cause(err), driver.Reason(err))
	}
	err = completeErr(t, d, user("bad key"))
	var ce *driver.CredentialError
	if !errors.As(err, &ce) || ce.Credential != "none" || ce.Status != 401 || driver.Cause(err) != driver.CauseCredentialRejected {
		t.Errorf("status turn = %v", err)
	}
	if got, want := driver.Reason(err), "the provider rejected the inference credential none from the environment (HTTP 401); it is read once at launch"; got != want {
		t.Errorf("status reason = %q, want %q", got, want)
	}
}

// TestDelayCancellable checks delay_ms waits and yields to ctx (DRV-7).
func TestDelayCancellable(t *testing.T) {
	t.Parallel()
	d := mustParse(t, "script_version: 1\nrules:\n  - match: {contains: slow}\n    turns: [{text: late, delay_ms: 3600000}]\n  - match: {always: true}\n    turns: [{text: soon, delay_ms: 1}]\n")
	if got := complete(t, d, user("quick")).Text(); got != "soon" {
		t.Errorf("delayed text = %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1) // one result from the one call
	go func() {
		_, err := d.Complete(ctx, &driver.Request{Messages: []driver.Message{user("slow")}})
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("canceled delay error = %v, want context.Canceled", err)
	}
}

func TestKindAndEncode(t *testing.T) {
	t.Parallel()
	d := mustParse(t, "script_version: 1\n")
	if d.Kind() != "scripted" {
		t.Errorf("Kind() = %q", d.Kind())
	}
	n, err := driver.EstimateInput(d, &driver.Request{Model: "scripted", Messages: []driver.Message{user("hi")}})
	if err != nil || n == 0 {
		t.Errorf("EstimateInput = %d, %v", n, err)
	}
}
