package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-go/mur/a2a"
)

// rpcServer serves fn as a JSON-RPC door: it decodes each request, records
// it, and writes fn's raw answer (with the request's id substituted for $ID).
type rpcServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	header http.Header
	body   map[string]any
}

func newRPCServer(t *testing.T, answer func(method string, body map[string]any) string) *rpcServer {
	t.Helper()
	s := &rpcServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		s.mu.Lock()
		s.reqs = append(s.reqs, recorded{header: r.Header.Clone(), body: body})
		s.mu.Unlock()
		method, _ := body["method"].(string)
		id, _ := json.Marshal(body["id"])
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, strings.ReplaceAll(answer(method, body), "$ID", string(id)))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *rpcServer) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

func mustNew(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v) error = %v", cfg, err)
	}
	return c
}

const taskJSON = `{"id":"tsk_1","contextId":"ctx_1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-01-01T00:00:00.000Z"}}`

func TestNewValidates(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "127.0.0.1:80", "ftp://x", "http://", "http://%zz"} {
		if _, err := New(Config{BaseURL: bad}); err == nil {
			t.Errorf("New(%q) error = nil, want an error", bad)
		}
	}
	if _, err := New(Config{BaseURL: "http://x", RequestTimeout: -1}); err == nil {
		t.Error("New(RequestTimeout -1) error = nil, want an error")
	}
	c := mustNew(t, Config{BaseURL: "http://127.0.0.1:9/"})
	if got := c.BaseURL(); got != "http://127.0.0.1:9" {
		t.Errorf("BaseURL() = %q, want no trailing slash", got)
	}
}

func TestConfigLogValueRedactsToken(t *testing.T) {
	t.Parallel()
	v := Config{BaseURL: "http://x", Token: "mdt_secret"}.LogValue().String()
	if strings.Contains(v, "mdt_secret") || !strings.Contains(v, "[redacted]") {
		t.Errorf("LogValue() = %s, want the token redacted", v)
	}
}

// Every request carries A2A-Version, Content-Type and the bearer token; call
// options add murmur headers (door.md RPC-3, PEER-3; tools.md CALL-3).
func TestRequestHeaders_RPC3_PEER3(t *testing.T) {
	t.Parallel()
	s := newRPCServer(t, func(string, map[string]any) string {
		return `{"jsonrpc":"2.0","id":$ID,"result":{"task":` + taskJSON + `}}`
	})
	c := mustNew(t, Config{BaseURL: s.URL, Token: "tok-1"})
	msg := a2a.Message{MessageID: "m-1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}
	resp, err := c.SendMessage(context.Background(), a2a.SendMessageRequest{Message: msg,
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}},
		WithTaskOrigin(a2a.OriginPeer, a2a.TrustTrusted))
	if err != nil {
		t.Fatalf("SendMessage() error = %v", err)
	}
	if resp.Task == nil || resp.Task.ID != "tsk_1" || resp.Task.Status.State != a2a.TaskStateWorking {
		t.Errorf("SendMessage() = %+v, want task tsk_1 WORKING", resp)
	}
	r := s.requests()[0]
	for k, want := range map[string]string{
		"A2A-Version": "1.0", "Content-Type": "application/json", "Authorization": "Bearer tok-1",
		"X-Murmur-Task-Origin": "peer", "X-Murmur-Task-Trust": "trusted",
	} {
		if got := r.header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if r.body["jsonrpc"] != "2.0" || r.body["method"] != "SendMessage" {
		t.Errorf("request body = %v, want jsonrpc 2.0 method SendMessage", r.body)
	}
	params, _ := r.body["params"].(map[string]any)
	conf, _ := params["configuration"].(map[string]any)
	if conf["returnImmediately"] != true {
		t.Errorf("params = %v, want configuration.returnImmediately true", params)
	}

	// Without a token no Authorization header is sent.
	c2 := mustNew(t, Config{BaseURL: s.URL})
	if _, err := c2.GetTask(context.Background(), a2a.GetTaskRequest{ID: "tsk_1"}); err == nil {
		t.Fatal("GetTask() on a SendMessage answer error = nil, want a result decode error")
	}
	if got := s.requests()[1].header.Values("Authorization"); len(got) != 0 {
		t.Errorf("Authorization without a token = %q, want none", got)
	}
}

// JSON-RPC ids are unique per client, also under concurrent calls.
func TestIDsUnique(t *testing.T) {
	t.Parallel()
	s := newRPCServer(t, func(string, map[string]any) string {
		return `{"jsonrpc":"2.0","id":$ID,"result":` + taskJSON + `}`
	})
	c := mustNew(t, Config{BaseURL: s.URL})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := c.GetTask(context.Background(), a2a.GetTaskRequest{ID: "tsk_1"}); err != nil {
				t.Errorf("GetTask() error = %v", err)
			}
		})
	}
	wg.Wait()
	seen := map[float64]bool{}
	for _, r := range s.requests() {
		id, ok := r.body["id"].(float64)
		if !ok || seen[id] {
			t.Fatalf("request id %v repeated or not a number", r.body["id"])
		}
		seen[id] = true
	}
	if len(seen) != 20 {
		t.Errorf("distinct ids = %d, want 20", len(seen))
	}
}

func TestMethodsDecodeResults(t *testing.T) {
	t.Parallel()
	answers := map[string]string{
		"GetTask":              taskJSON,
		"CancelTask":           strings.Replace(taskJSON, "WORKING", "CANCELED", 1),
		"ListTasks":            `{"tasks":[` + taskJSON + `],"nextPageToken":"","pageSize":50,"totalSize":1}`,
		"GetExtendedAgentCard": `{"name":"coder","version":"1.0.0","skills":[{"id":"task"}]}`,
		"session/stop":         `{"session_id":"ses_1","canceled":["tsk_1"],"residue":[]}`,
	}
	s := newRPCServer(t, func(m string, _ map[string]any) string {
		return `{"jsonrpc":"2.0","id":$ID,"result":` + answers[m] + `}`
	})
	c := mustNew(t, Config{BaseURL: s.URL})
	ctx := context.Background()
	if tk, err := c.CancelTask(ctx, a2a.CancelTaskRequest{ID: "tsk_1"}); err != nil || tk.Status.State != a2a.TaskStateCanceled {
		t.Errorf("CancelTask() = %+v, %v; want CANCELED", tk, err)
	}
	if l, err := c.ListTasks(ctx, a2a.ListTasksRequest{}); err != nil || len(l.Tasks) != 1 || l.PageSize != 50 {
		t.Errorf("ListTasks() = %+v, %v; want one task, pageSize 50", l, err)
	}
	if card, err := c.GetExtendedAgentCard(ctx); err != nil || card.Name != "coder" {
		t.Errorf("GetExtendedAgentCard() = %+v, %v; want coder", card, err)
	}
	if r, err := c.StopSession(ctx); err != nil || r.SessionID != "ses_1" || len(r.Canceled) != 1 {
		t.Errorf("StopSession() = %+v, %v; want ses_1 with one canceled", r, err)
	}
	var raw json.RawMessage
	if err := c.Call(ctx, "GetTask", map[string]string{"id": "x"}, &raw); err != nil || string(raw) != taskJSON {
		t.Errorf("Call(raw) = %s, %v; want the raw task", raw, err)
	}
}

// A JSON-RPC error is an *a2a.Error that errors.Is its sentinel (door.md RPC-4).
func TestJSONRPCErrorTyped_RPC4(t *testing.T) {
	t.Parallel()
	s := newRPCServer(t, func(string, map[string]any) string {
		return `{"jsonrpc":"2.0","id":$ID,"error":{"code":-32001,"message":"Task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"tsk_x"}}]}}`
	})
	c := mustNew(t, Config{BaseURL: s.URL})
	_, err := c.GetTask(context.Background(), a2a.GetTaskRequest{ID: "tsk_x"})
	if !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("GetTask() error = %v, want ErrTaskNotFound", err)
	}
	var ae *a2a.Error
	if !errors.As(err, &ae) || ae.Code != -32001 || ae.Reason != "TASK_NOT_FOUND" || ae.Metadata["taskId"] != "tsk_x" {
		t.Errorf("GetTask() error = %#v, want code -32001 with ErrorInfo taskId", err)
	}
	if IsNoAnswer(err) {
		t.Error("IsNoAnswer(JSON-RPC error) = true, want false")
	}
}

// HTTP refusals are *HTTPError with the {"error","message"} body (door.md AUTH-7, DOOR-4, DOOR-5).
func TestHTTPRefusals_AUTH7(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("Authorization") {
		case "":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Www-Authenticate", `Bearer realm="coder"`)
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"unauthenticated","message":"this door requires Authorization: Bearer <token>"}`)
		case "Bearer big":
			w.WriteHeader(http.StatusRequestEntityTooLarge)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	_, err := mustNew(t, Config{BaseURL: srv.URL}).GetTask(ctx, a2a.GetTaskRequest{ID: "t"})
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 401 || he.Code != "unauthenticated" ||
		he.Message != "this door requires Authorization: Bearer <token>" || he.WWWAuthenticate != `Bearer realm="coder"` {
		t.Fatalf("GetTask() error = %#v, want the 401 refusal", err)
	}
	if want := "door answered HTTP 401 unauthenticated: this door requires Authorization: Bearer <token>"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	for tok, status := range map[string]int{"big": 413, "other": 404} {
		_, err := mustNew(t, Config{BaseURL: srv.URL, Token: tok}).StopSession(ctx)
		if !errors.As(err, &he) || he.Status != status || he.Code != "" || len(he.Body) != 0 {
			t.Errorf("StopSession(token %s) error = %#v, want HTTP %d with an empty body", tok, err, status)
		}
	}
}

func TestBadResponses(t *testing.T) {
	t.Parallel()
	for name, answer := range map[string]string{
		"not json":        `{"jsonrpc":`,
		"wrong version":   `{"jsonrpc":"1.0","id":$ID,"result":{}}`,
		"wrong id":        `{"jsonrpc":"2.0","id":999999,"result":{}}`,
		"string id":       `{"jsonrpc":"2.0","id":"$ID","result":{}}`,
		"both":            `{"jsonrpc":"2.0","id":$ID,"result":{},"error":{"code":1,"message":"x"}}`,
		"neither":         `{"jsonrpc":"2.0","id":$ID}`,
		"null result":     `{"jsonrpc":"2.0","id":$ID,"result":null}`,
		"result mismatch": `{"jsonrpc":"2.0","id":$ID,"result":[1]}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newRPCServer(t, func(string, map[string]any) string { return answer })
			_, err := mustNew(t, Config{BaseURL: s.URL}).GetTask(context.Background(), a2a.GetTaskRequest{ID: "t"})
			if !errors.Is(err, ErrBadResponse) || IsNoAnswer(err) {
				t.Errorf("GetTask() error = %v, want ErrBadResponse", err)
			}
		})
	}
}

func TestResponseBounded(t *testing.T) {
	t.Parallel()
	s := newRPCServer(t, func(string, map[string]any) string {
		return `{"jsonrpc":"2.0","id":$ID,"result":{"id":"` + strings.Repeat("x", 4096) + `"}}`
	})
	c := mustNew(t, Config{BaseURL: s.URL, MaxResponseBytes: 1024})
	_, err := c.GetTask(context.Background(), a2a.GetTaskRequest{ID: "t"})
	if !errors.Is(err, ErrResponseTooLarge) {
		t.Errorf("GetTask() error = %v, want ErrResponseTooLarge", err)
	}
}

func TestCard_CARD1(t *testing.T) {
	t.Parallel()
	var gotPath, gotMethod string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotMethod = r.URL.Path, r.Method
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name":"coder","version":"1.2.0","supportedInterfaces":[{"url":"http://127.0.0.1:1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
			"capabilities":{"streaming":true,"extensions":[{"uri":"`+a2a.ExtensionDoor+`","params":{"peerTasks":true}}]}}`)
	}))
	t.Cleanup(srv.Close)
	card, err := mustNew(t, Config{BaseURL: srv.URL + "/"}).Card(context.Background())
	if err != nil {
		t.Fatalf("Card() error = %v", err)
	}
	if gotMethod != "GET" || gotPath != "/.well-known/agent-card.json" {
		t.Errorf("Card() requested %s %s, want GET /.well-known/agent-card.json", gotMethod, gotPath)
	}
	if card.Name != "coder" || !card.Capabilities.Streaming || card.Extension(a2a.ExtensionDoor) == nil {
		t.Errorf("Card() = %+v, want coder with the door extension", card)
	}
}

// Any answer decodes to a result or an error, never a panic.
func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Invalid JSON payload"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"m","data":[{"reason":"TASK_NOT_FOUND","metadata":{"taskId":"t"}}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		raw, err := decodeResponse(1, b)
		if err == nil && len(raw) == 0 {
			t.Fatalf("decodeResponse(%q) = empty result and no error", b)
		}
	})
}
