package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/anthropic"
	"github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	"github.com/murmur-go/mur/runtime/driver/internal/drivertest"
)

func newDriver(t *testing.T, srv *fake.Server, key string) (*anthropic.Driver, *drivertest.Sleeps) {
	t.Helper()
	sl := &drivertest.Sleeps{}
	cred := "ANTHROPIC_API_KEY"
	if key == "" {
		cred = ""
	}
	d, err := anthropic.New(anthropic.Config{Endpoint: srv.URL, APIKey: driver.Secret(key), Credential: cred, Sleep: sl.Sleep})
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	return d, sl
}

func msg(role driver.Role, blocks ...driver.Block) driver.Message {
	return driver.Message{ID: "msg_x", Role: role, Blocks: blocks}
}

// TestToolUseRoundTrip drives DRV-6's wire format both ways: headers, system,
// tools, two tool uses answered in one user message, same-role merging,
// usage with cache fields.
func TestToolUseRoundTrip(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "sk-ant-test", Model: "claude-test"})
	defer srv.Close()
	srv.Enqueue(
		fake.Reply{Text: "Two things.", ToolUses: []fake.ToolUse{
			{ID: "toolu_1", Name: "bash", Input: `{"command": "ls"}`},
			{ID: "toolu_2", Name: "session-status"},
		}, Usage: &fake.Usage{InputTokens: 200, OutputTokens: 30, CacheReadInputTokens: fake.Int64(150), CacheCreationInputTokens: fake.Int64(0)}},
		fake.Reply{Text: "Done.", Usage: &fake.Usage{InputTokens: 260, OutputTokens: 4}},
	)
	d, _ := newDriver(t, srv, "sk-ant-test")
	req := &driver.Request{Model: "claude-test", System: "[Capsule]\nname: hello", MaxTokens: 1024,
		Tools: []driver.ToolSpec{{Name: "bash", Description: "Run", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
			{Name: "session-status", Description: "Status"}},
		Messages: []driver.Message{msg(driver.RoleUser, driver.TextBlock("list & report"))}}
	r0, err := d.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete(turn 0) error = %v", err)
	}
	uses := r0.ToolUses()
	if r0.StopReason != "tool_use" || r0.Text() != "Two things." || len(uses) != 2 ||
		string(uses[0].Input) != `{"command":"ls"}` || string(uses[1].Input) != `{}` || uses[1].ID != "toolu_2" {
		t.Fatalf("turn 0 = %+v", r0)
	}
	if u := r0.Usage; *u.Input != 200 || *u.Output != 30 || *u.Cached != 150 || u.CacheWrite == nil || *u.CacheWrite != 0 {
		t.Errorf("turn 0 usage = %+v", u)
	}
	req.Messages = append(req.Messages,
		msg(driver.RoleAssistant, r0.Blocks...),
		msg(driver.RoleTool, driver.ToolResultBlock("toolu_1", "a\nb", false), driver.ToolResultBlock("toolu_2", "tool 'x' refused", true)),
		msg(driver.RoleUser, driver.TextBlock("Session deadline: soon."), driver.TextBlock("")),
	)
	r1, err := d.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete(turn 1) error = %v", err)
	}
	if r1.StopReason != "end_turn" || r1.Text() != "Done." || r1.Usage.Cached != nil || r1.Usage.CacheWrite != nil {
		t.Errorf("turn 1 = %+v", r1)
	}
	drivertest.NoFailures(t, srv)
	got := srv.Requests()
	for _, r := range got {
		if r.Header.Get("x-api-key") != "sk-ant-test" || r.Header.Get("anthropic-version") != "2023-06-01" || r.Header.Get("Authorization") != "" {
			t.Errorf("headers = %v", r.Header)
		}
	}
	if msgs := got[1].Decoded.Messages; len(msgs) != 3 || len(msgs[2].Content) != 3 || msgs[2].Content[2].Type != "text" {
		t.Errorf("merged conversation = %s", got[1].Body)
	}
	if string(r1.RequestBody) != string(got[1].Body) || r1.EstimatedInputTokens() != driver.EstimateTokens(len(got[1].Body)) {
		t.Error("RequestBody differs from the body the server got")
	}
	golden.Check(t, "roundtrip_request", got[1].Body)
}

// TestStopReasonsPassThrough: DRV-6 passes stop_reason verbatim; null is "".
func TestStopReasonsPassThrough(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{})
	defer srv.Close()
	d, _ := newDriver(t, srv, "")
	ask := func() *driver.Response {
		r, err := d.Complete(context.Background(), &driver.Request{Model: "m", Messages: []driver.Message{msg(driver.RoleUser, driver.TextBlock("q"))}})
		if err != nil {
			t.Fatalf("Complete() error = %v", err)
		}
		return r
	}
	for _, stop := range []string{"end_turn", "max_tokens", "tool_use", "stop_sequence", "refusal"} {
		srv.Enqueue(fake.Reply{Text: "x", StopReason: stop})
		if got := ask().StopReason; got != stop {
			t.Errorf("stop_reason %q → %q", stop, got)
		}
	}
	srv.Enqueue(fake.Malformed(`{"type":"message","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"x","input":[1]}],"stop_reason":null}`))
	r := ask()
	if r.StopReason != "" || r.Text() != "hi" || r.Usage != (driver.Usage{}) {
		t.Errorf("null stop = %+v", r)
	}
	if u := r.ToolUses(); len(u) != 1 || driver.InvalidToolArguments(u[0]) != "invalid tool arguments: input is not a JSON object" {
		t.Errorf("array input = %+v", u)
	}
	drivertest.NoFailures(t, srv)
	if req := srv.Requests()[0]; req.Header.Get("x-api-key") != "" || req.Decoded.MaxTokens != 8192 || req.Decoded.System != nil {
		t.Errorf("keyless request = %v %s", req.Header, req.Body)
	}
}

// TestForeignInvalidCall: a call another driver could not read goes out with
// input {} so the conversation stays valid after a switch (DRV-2).
func TestForeignInvalidCall(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{})
	defer srv.Close()
	srv.Enqueue(fake.Text("ok"))
	d, _ := newDriver(t, srv, "")
	bad := driver.Block{Type: driver.BlockToolUse, ID: "call_1", Name: "bash", Input: json.RawMessage(`"{\"command\": "`), InputError: "unexpected end of JSON input"}
	_, err := d.Complete(context.Background(), &driver.Request{Model: "m", Messages: []driver.Message{
		msg(driver.RoleUser, driver.TextBlock("q")), msg(driver.RoleAssistant, bad),
		msg(driver.RoleTool, driver.ToolResultBlock("call_1", driver.InvalidToolArguments(bad), true)),
	}})
	if err != nil {
		t.Fatalf("Complete() error = %v", err)
	}
	drivertest.NoFailures(t, srv)
	if in := srv.Requests()[0].Decoded.Messages[1].Content[0].Input; string(in) != "{}" {
		t.Errorf("input sent = %s", in)
	}
}

func TestNewEndpoint(t *testing.T) {
	t.Parallel()
	if _, err := anthropic.New(anthropic.Config{Endpoint: "unix:///x"}); err == nil {
		t.Error("New(unix) succeeded")
	}
	d, err := anthropic.New(anthropic.Config{})
	if err != nil || d.Kind() != "anthropic" {
		t.Errorf("New(default) = %v, %v", d, err)
	}
}
