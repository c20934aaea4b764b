package door

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// rpcCase is one request and its exact JSON-RPC answer, pinned together in
// one golden file per test.
type rpcCase struct {
	name string
	body string
	hdr  []string
}

func runRPCCases(t *testing.T, td *testDoor, token, goldenName string, cases []rpcCase) {
	t.Helper()
	var out strings.Builder
	for _, c := range cases {
		rep := td.post(token, c.body, c.hdr...)
		if rep.status != http.StatusOK || rep.header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: answer %d %q, want 200 application/json (DOOR-6)", c.name, rep.status, rep.header.Get("Content-Type"))
		}
		out.WriteString(c.name + ": " + rep.body + "\n")
	}
	golden.Check(t, goldenName, out.String())
}

// TestEnvelope_RPC1_RPC2 pins ORD-1 steps 6 and 7: -32700 with a null id,
// -32600 echoing a valid id, ids echoed with their JSON type.
func TestEnvelope_RPC1_RPC2(t *testing.T) {
	td := startDoor(t, opts{})
	runRPCCases(t, td, "", "rpc_envelope", []rpcCase{
		{"not json", `{"jsonrpc":"2.0",`, nil},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"GetTask"} x`, nil},
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", nil},
		{"whitespace only", "   ", nil},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`, nil},
		{"scalar", `42`, nil},
		{"null", `null`, nil},
		{"no jsonrpc", `{"id":7,"method":"GetTask"}`, nil},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"GetTask"}`, nil},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":"a","method":"GetTask"}`, nil},
		{"method number", `{"jsonrpc":"2.0","id":-3,"method":5}`, nil},
		{"method missing", `{"jsonrpc":"2.0","id":"x"}`, nil},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"GetTask"}`, nil},
		{"id fraction", `{"jsonrpc":"2.0","id":1.5,"method":"GetTask"}`, nil},
		{"id exponent", `{"jsonrpc":"2.0","id":1e3,"method":"GetTask"}`, nil},
		{"id object", `{"jsonrpc":"2.0","id":{},"method":"GetTask"}`, nil},
		{"params scalar", `{"jsonrpc":"2.0","id":"p","method":"GetTask","params":"x"}`, nil},
		{"params null reads as absent", `{"jsonrpc":"2.0","id":8,"method":"GetTask","params":null}`, nil},
		{"negative id echoed", `{"jsonrpc":"2.0","id":-12345678901234567890,"method":"GetTask","params":{"id":"t"}}`, nil},
		{"string id echoed as sent", `{"jsonrpc":"2.0","id":"a\u00e9\"b","method":"GetTask","params":{"id":"t"}}`, nil},
		{"other members ignored", `{"jsonrpc":"2.0","id":0,"method":"GetTask","params":{"id":"t"},"Method":"x","meta":{}}`, nil},
		{"case-sensitive members", `{"JSONRPC":"2.0","id":0,"method":"GetTask"}`, nil},
	})
}

// TestNotification_RPC1: a valid request without an id runs nothing: 204,
// empty body, even for SendMessage and before the version check.
func TestNotification_RPC1(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	body := strings.Replace(sendBody("hi", ""), `"id":1,`, "", 1)
	rep := td.post("", body, "A2A-Version:")
	if rep.status != http.StatusNoContent || rep.body != "" {
		t.Errorf("notification = %d %q, want 204 empty", rep.status, rep.body)
	}
	if c := td.reg.Counts(); len(c) != 0 {
		t.Errorf("a notification stored tasks: %v", c)
	}
	// An invalid request without an id is still answered.
	r := td.call("", `{"jsonrpc":"1.0","method":"GetTask"}`)
	if r.Error == nil || r.Error.Code != -32600 || string(r.ID) != "null" {
		t.Errorf("invalid notification = %+v id %s, want -32600 null", r.Error, r.ID)
	}
}

// TestVersion_RPC3 pins ORD-1 step 8, the query-parameter fallback included.
func TestVersion_RPC3(t *testing.T) {
	td := startDoor(t, opts{})
	body := `{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"t"}}`
	runRPCCases(t, td, "", "rpc_version", []rpcCase{
		{"absent", body, []string{"A2A-Version:"}},
		{"0.3", body, []string{"A2A-Version:", "A2A-Version: 0.3"}},
		{"1", body, []string{"A2A-Version:", "A2A-Version: 1"}},
		{"1.1", body, []string{"A2A-Version:", "A2A-Version: 1.1"}},
		{"1.0x", body, []string{"A2A-Version:", "A2A-Version: 1.0x"}},
		{"1.0.", body, []string{"A2A-Version:", "A2A-Version: 1.0."}},
		{"two lines", body, []string{"A2A-Version: 1.0"}},
		{"1.0.7 served", body, []string{"A2A-Version:", "A2A-Version: 1.0.7"}},
		{"stream/watch negotiated", `{"jsonrpc":"2.0","id":4,"method":"stream/watch"}`, []string{"A2A-Version:"}},
		{"streaming refused as one body", `{"jsonrpc":"2.0","id":5,"method":"SubscribeToTask","params":{"id":"t"}}`, []string{"A2A-Version:", "A2A-Version: 0.3"}},
	})
	t.Run("query parameter when no header line", func(t *testing.T) {
		rep := td.do(http.MethodPost, "/?A2A-Version=1.0", "", body, "A2A-Version:")
		if !strings.Contains(rep.body, `"code":-32001`) {
			t.Errorf("with ?A2A-Version=1.0: %s, want -32001", rep.body)
		}
		rep = td.do(http.MethodPost, "/?A2A-Version=1.0", "", body, "A2A-Version:", "A2A-Version: 0.3")
		if !strings.Contains(rep.body, `"code":-32009`) {
			t.Errorf("header 0.3 with ?A2A-Version=1.0: %s, want -32009", rep.body)
		}
	})
}

// TestCompletion_PEER5 pins ORD-1 step 9.
func TestCompletion_PEER5(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	origin := "x-murmur-task-origin: Completion"
	runRPCCases(t, td, "", "rpc_completion", []rpcCase{
		{"misaddressed", sendBody("hi", ""), []string{origin, "x-murmur-completion-session: ses_other"}},
		{"unaddressed", sendBody("hi", ""), []string{origin}},
		{"misaddressed before method", `{"jsonrpc":"2.0","id":2,"method":"nope"}`, []string{origin}},
		{"not SendMessage", `{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"t"}}`, []string{origin, "x-murmur-completion-session: " + testSession}},
		{"not awaited", sendBody("hi", ""), []string{origin, "x-murmur-completion-session:  " + strings.ToUpper(testSession) + " "}},
		{"not awaited names delegation", sendBody("hi", ""), []string{origin, "x-murmur-completion-session: " + testSession, "x-murmur-delegation-id: dlg_1"}},
	})
	if c := td.reg.Counts(); len(c) != 0 {
		t.Errorf("a completion stored tasks: %v", c)
	}
}

// fakeCompletions awaits the delegations in awaits; tokens maps a
// completion token to its delegation.
type fakeCompletions struct {
	mu     sync.Mutex
	awaits map[string]bool
	tokens map[string]string
	got    map[string]a2a.Message
}

func (f *fakeCompletions) Complete(id string, msg a2a.Message) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.awaits[id] {
		return false
	}
	f.got[id] = msg
	return true
}

func (f *fakeCompletions) Bearer(token string) (string, bool) {
	id, ok := f.tokens[token]
	return id, ok
}

// TestCompletionDelivered_DLG7: a completion a live delegation awaits is
// handed to it and answered with a message; it starts no task. On an
// authenticated door the child's completion token carries it, for its own
// delegation only, and reaches no method.
func TestCompletionDelivered_DLG7(t *testing.T) {
	fc := &fakeCompletions{awaits: map[string]bool{"dlg_1": true, "dlg_2": true},
		tokens: map[string]string{"mdc_tok1": "dlg_1"}, got: map[string]a2a.Message{}}
	origin := "x-murmur-task-origin: completion"
	addressed := "x-murmur-completion-session: " + testSession
	body := strings.Replace(sendBody(`{"status":"ok"}`, ""), `"id":1`, `"id":"c"`, 1)
	public := startDoor(t, opts{noExecutor: true, completions: fc})
	r := public.call("", body, origin, addressed, "x-murmur-delegation-id: dlg_2")
	if r.Error != nil || !strings.Contains(string(r.Result), `"message":{`) ||
		!strings.Contains(string(r.Result), `"role":"ROLE_AGENT","parts":[{"text":"completion received for delegation dlg_2",`) {
		t.Errorf("matched completion = %s %+v", r.Result, r.Error)
	}
	if m := fc.got["dlg_2"]; a2a.Text(m.Parts) != `{"status":"ok"}` {
		t.Errorf("the delegation got %q", a2a.Text(m.Parts))
	}
	auth := startDoor(t, opts{noExecutor: true, auth: true, completions: fc})
	const bearer = "mdc_tok1"
	if r := auth.call(bearer, body, origin, addressed, "x-murmur-delegation-id: dlg_1"); r.Error != nil {
		t.Errorf("completion with its token = %+v", r.Error)
	}
	if r := auth.call(bearer, body, origin, addressed, "x-murmur-delegation-id: dlg_2"); r.Error == nil || r.Error.Code != -31002 {
		t.Errorf("another delegation's completion with dlg_1's token = %s %+v, want -31002", r.Result, r.Error)
	}
	rep := auth.post(bearer, sendBody("work", ""))
	if rep.status != http.StatusForbidden || !strings.Contains(rep.body, `"insufficient_scope"`) {
		t.Errorf("a task sent with a completion token = %d %s, want 403 insufficient_scope", rep.status, rep.body)
	}
	for _, td := range []*testDoor{public, auth} {
		if c := td.reg.Counts(); len(c) != 0 {
			t.Errorf("a completion stored tasks: %v", c)
		}
	}
}

// TestMethodResolution_CARD5 pins ORD-1 step 10 and its exceptions, then
// steps 12 and 13.
func TestMethodResolution_CARD5(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	none := startDoor(t, opts{acceptance: tasktable.ModeNone})
	cases := []rpcCase{
		{"A2A 0.3 name", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, nil},
		{"tasks/get", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}`, nil},
		{"empty name", `{"jsonrpc":"2.0","id":1,"method":""}`, nil},
		{"push create", `{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":[]}`, nil},
		{"push get", `{"jsonrpc":"2.0","id":1,"method":"GetTaskPushNotificationConfig"}`, nil},
		{"push list", `{"jsonrpc":"2.0","id":1,"method":"ListTaskPushNotificationConfigs"}`, nil},
		{"push delete", `{"jsonrpc":"2.0","id":1,"method":"DeleteTaskPushNotificationConfig"}`, nil},
		{"extended card on a public door", `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}`, nil},
		{"forget-session on SendMessage", sendBody("hi", ""), []string{"x-murmur-forget-session:  TRUE "}},
		{"forget-session on SendStreamingMessage", strings.Replace(sendBody("hi", ""), "SendMessage", "SendStreamingMessage", 1), []string{"x-murmur-forget-session: true"}},
		{"forget-session ignored elsewhere", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}`, []string{"x-murmur-forget-session: true"}},
		{"forget-session false", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":[]}`, []string{"x-murmur-forget-session: false"}},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":["t"]}`, nil},
		{"params array on session/stop", `{"jsonrpc":"2.0","id":1,"method":"session/stop","params":[]}`, nil},
	}
	runRPCCases(t, td, "", "rpc_methods", cases)
	runRPCCases(t, none, "", "rpc_methods_none", []rpcCase{
		{"SendMessage under none", sendBody("hi", ""), nil},
		{"SendStreamingMessage under none", strings.Replace(sendBody("hi", ""), "SendMessage", "SendStreamingMessage", 1), nil},
		{"SubscribeToTask under none", `{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"t"}}`, nil},
		{"GetTask under none", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}`, nil},
	})
}
