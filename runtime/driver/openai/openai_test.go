package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/internal/drivertest"
	"github.com/murmur-go/mur/runtime/driver/openai"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
)

func newDriver(t *testing.T, srv *fake.Server, key string, mod func(*openai.Config)) (*openai.Driver, *drivertest.Sleeps) {
	t.Helper()
	sl := &drivertest.Sleeps{}
	cfg := openai.Config{Endpoint: srv.URL, APIKey: driver.Secret(key), Credential: "OPENAI_API_KEY", Sleep: sl.Sleep}
	if mod != nil {
		mod(&cfg)
	}
	d, err := openai.New(cfg)
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	return d, sl
}

var tools = []driver.ToolSpec{
	{Name: "bash", Description: "Run a command", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
	{Name: "session-status", Description: "Report the session"},
}

func userMsg(text string) driver.Message {
	return driver.Message{ID: "msg_1", Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(text)}}
}

// TestToolCallRoundTrip drives DRV-5's wire format both ways: tools, a tool
// call, its result as a role "tool" message, usage with cached tokens.
func TestToolCallRoundTrip(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test"})
	defer srv.Close()
	srv.Enqueue(
		fake.Reply{Text: "Listing.", ToolCalls: []fake.ToolCall{{ID: "call_abc", Name: "bash", Arguments: `{"command": "ls -1"}`}},
			Usage: &fake.Usage{PromptTokens: 120, CompletionTokens: 15, CachedTokens: fake.Int64(100)}},
		fake.Reply{Text: "Files: a, b", Usage: &fake.Usage{PromptTokens: 150, CompletionTokens: 5}},
	)
	d, _ := newDriver(t, srv, "sk-test", nil)
	req := &driver.Request{Model: "gpt-test", System: "[Capsule]\nname: hello", Messages: []driver.Message{userMsg("list the files")},
		Tools: tools, MaxTokens: 8192}
	r0, err := d.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete(turn 0) error = %v", err)
	}
	if r0.StopReason != driver.StopToolUse || r0.Text() != "Listing." {
		t.Errorf("turn 0 = %q, %q", r0.StopReason, r0.Text())
	}
	calls := r0.ToolUses()
	if len(calls) != 1 || calls[0].ID != "call_abc" || calls[0].Name != "bash" || string(calls[0].Input) != `{"command":"ls -1"}` || calls[0].InputError != "" {
		t.Fatalf("turn 0 calls = %+v", calls)
	}
	if u := r0.Usage; *u.Input != 120 || *u.Output != 15 || *u.Cached != 100 || u.CacheWrite != nil {
		t.Errorf("turn 0 usage = %+v", u)
	}
	req.Messages = append(req.Messages,
		driver.Message{ID: "msg_2", Role: driver.RoleAssistant, Blocks: r0.Blocks},
		driver.Message{ID: "msg_3", Role: driver.RoleTool, Blocks: []driver.Block{
			driver.ToolResultBlock("call_abc", "<untrusted-content source=tool:bash>\na\nb\n</untrusted-content>", false)}},
	)
	r1, err := d.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete(turn 1) error = %v", err)
	}
	if r1.StopReason != driver.StopEndTurn || r1.Text() != "Files: a, b" || len(r1.ToolUses()) != 0 {
		t.Errorf("turn 1 = %+v", r1)
	}
	if u := r1.Usage; *u.Input != 150 || u.Cached != nil {
		t.Errorf("turn 1 usage = %+v", u)
	}
	drivertest.NoFailures(t, srv)
	got := srv.Requests()
	if len(got) != 2 {
		t.Fatalf("requests = %d, want 2", len(got))
	}
	for _, r := range got {
		if r.Header.Get("Authorization") != "Bearer sk-test" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("headers = %v", r.Header)
		}
	}
	if string(r1.RequestBody) != string(got[1].Body) {
		t.Error("RequestBody differs from the body the server got")
	}
	if len(r1.RawBody) == 0 || r1.EstimatedInputTokens() != driver.EstimateTokens(len(got[1].Body)) {
		t.Error("RawBody or the input estimate is off")
	}
	golden.Check(t, "roundtrip_request", got[1].Body)
	if n, err := driver.EstimateInput(d, req); err != nil || n != driver.EstimateTokens(len(got[1].Body)) {
		t.Errorf("EstimateInput = %d, %v", n, err)
	}
}

// TestKeylessAndMaxCompletionTokens: no Authorization when keyless (DRV-5),
// the cap under config.max_tokens_field, an empty system prompt omitted.
func TestKeylessAndMaxCompletionTokens(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{})
	defer srv.Close()
	srv.Enqueue(fake.Text("ok"))
	d, _ := newDriver(t, srv, "", func(c *openai.Config) {
		c.Credential = ""
		c.Options = driver.Options{MaxTokensField: driver.MaxCompletionTokensField}
	})
	if _, err := d.Complete(context.Background(), &driver.Request{Model: "qwen", Messages: []driver.Message{userMsg("hi")}, MaxTokens: 64}); err != nil {
		t.Fatalf("Complete() error = %v", err)
	}
	drivertest.NoFailures(t, srv)
	chat := srv.Requests()[0].Decoded
	if chat.MaxCompletionTokens == nil || *chat.MaxCompletionTokens != 64 || chat.MaxTokens != nil {
		t.Errorf("caps = %v %v", chat.MaxTokens, chat.MaxCompletionTokens)
	}
	if len(chat.Messages) != 1 || chat.Messages[0].Role != "user" || chat.Tools != nil {
		t.Errorf("body = %s", srv.Requests()[0].Body)
	}
}

// TestFinishReasons checks DRV-5's mapping; others pass verbatim.
func TestFinishReasons(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "k"})
	defer srv.Close()
	d, _ := newDriver(t, srv, "k", nil)
	for finish, want := range map[string]string{
		"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens", "content_filter": "content_filter",
	} {
		srv.Enqueue(fake.Reply{Text: "x", FinishReason: finish})
		r, err := d.Complete(context.Background(), &driver.Request{Model: "m", Messages: []driver.Message{userMsg("q")}})
		if err != nil || r.StopReason != want {
			t.Errorf("finish_reason %q → %q, %v; want %q", finish, r.StopReason, err, want)
		}
	}
	srv.Enqueue(fake.Malformed(`{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":null}]}`))
	r, err := d.Complete(context.Background(), &driver.Request{Model: "m", Messages: []driver.Message{userMsg("q")}})
	if err != nil || r.StopReason != "" || r.Text() != "ab" || r.Usage != (driver.Usage{}) {
		t.Errorf("null finish = %+v, %v", r, err)
	}
	drivertest.NoFailures(t, srv)
}

// TestInvalidArguments: bad arguments mark the call (DRV-5) and round-trip
// unchanged.
func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "k"})
	defer srv.Close()
	srv.Enqueue(fake.Calls(
		fake.ToolCall{ID: "c1", Name: "bash", Arguments: `{"command": `},
		fake.ToolCall{ID: "c2", Name: "bash", Arguments: `["ls"]`},
		fake.ToolCall{ID: "c3", Name: "session-status", Arguments: ``},
	), fake.Text("done"))
	d, _ := newDriver(t, srv, "k", nil)
	req := &driver.Request{Model: "m", Messages: []driver.Message{userMsg("q")}}
	r, err := d.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete() error = %v", err)
	}
	calls := r.ToolUses()
	if len(calls) != 3 {
		t.Fatalf("calls = %+v", calls)
	}
	for i, want := range []string{
		"invalid tool arguments: unexpected end of JSON input",
		"invalid tool arguments: arguments are not a JSON object",
	} {
		if got := driver.InvalidToolArguments(calls[i]); calls[i].InputError == "" || got != want {
			t.Errorf("call %d: %q, want %q", i, got, want)
		}
	}
	if calls[2].InputError != "" || string(calls[2].Input) != "{}" {
		t.Errorf("empty arguments = %+v", calls[2])
	}
	var results []driver.Block
	for _, c := range calls {
		results = append(results, driver.ToolResultBlock(c.ID, "refused", true))
	}
	req.Messages = append(req.Messages, driver.Message{Role: driver.RoleAssistant, Blocks: r.Blocks},
		driver.Message{Role: driver.RoleTool, Blocks: results})
	if _, err := d.Complete(context.Background(), req); err != nil {
		t.Fatalf("Complete(round trip) error = %v", err)
	}
	drivertest.NoFailures(t, srv)
	sent := srv.Requests()[1].Decoded.Messages[1].ToolCalls
	if sent[0].Function.Arguments != `{"command": ` || sent[1].Function.Arguments != `["ls"]` || sent[2].Function.Arguments != "{}" {
		t.Errorf("arguments sent back = %+v", sent)
	}
}

func TestNewEndpoint(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"ftp://x/v1", "localhost:8080", "http://", "::"} {
		if _, err := openai.New(openai.Config{Endpoint: bad}); err == nil {
			t.Errorf("New(%q) succeeded", bad)
		}
	}
	d, err := openai.New(openai.Config{})
	if err != nil || d.Kind() != "openai" {
		t.Errorf("New(default) = %v, %v", d, err)
	}
}
