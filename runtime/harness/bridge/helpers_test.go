package bridge

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/murmur-go/mur/runtime/tool"
)

// testTools is a small tools_declared, deliberately not in name order.
var testTools = []tool.Spec{
	{Name: "session-status", Description: "Report the session's state.", InputSchema: []byte(tool.EmptySchema)},
	{Name: "bash", Description: "Run bash.", InputSchema: []byte(`{"type": "object", "properties": {"args": {"type": "string"}}}`)},
	{Name: "call-member", Description: "Call a member.", InputSchema: []byte(`{"type":"object","properties":{"member":{"type":"string"},"task":{"type":"string"}},"required":["member","task"]}`)},
	{Name: "notes", Description: "A skill."},
}

// echo answers a call with its fields, so tests see what Dispatch got.
func echo(_ context.Context, c Call) Answer {
	return Answer{Text: "name=" + c.Name + " args=" + string(c.Arguments) + " id=" + c.ToolCallID +
		" turn=" + strconv.Itoa(c.Turn) + " refusal=" + c.Refusal, IsError: c.Refusal != ""}
}

// startTest starts a bridge whose BRG-6 wait is wait (0: a minute, so a
// test that must not time out cannot) and closes it at the end of the test.
func startTest(t *testing.T, cfg Config, wait time.Duration) *Server {
	t.Helper()
	if cfg.Version == "" {
		cfg.Version = "0.1.0"
	}
	if cfg.Tools == nil {
		cfg.Tools = testTools
	}
	if cfg.Dispatch == nil {
		cfg.Dispatch = echo
	}
	if wait == 0 {
		wait = time.Minute
	}
	s, err := start(cfg, wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// exchange is one raw HTTP request and its response.
type exchange struct {
	status int
	header http.Header
	body   string
}

// send makes a raw request to url; headers are "Name: value" lines. It may
// run on any goroutine: a failure is reported with Errorf.
func send(t *testing.T, method, url, body string, headers ...string) exchange {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Errorf("%s %s: %v", method, url, err)
		return exchange{}
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Add(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", method, url, err)
		return exchange{}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("%s %s: read: %v", method, url, err)
	}
	return exchange{resp.StatusCode, resp.Header, string(b)}
}

// rpcErr posts body and returns only the transport's error.
func rpcErr(s *Server, session, body string) error {
	req, err := http.NewRequest(http.MethodPost, s.URL(), strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.Token().Reveal())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// rpc posts a JSON-RPC body as the CLIs do, with the token and, when set,
// the session id.
func rpc(t *testing.T, s *Server, session, body string) exchange {
	t.Helper()
	h := []string{"Authorization: Bearer " + s.Token().Reveal(), "Content-Type: application/json",
		"Accept: application/json, text/event-stream"}
	if session != "" {
		h = append(h, "Mcp-Session-Id: "+session, "Mcp-Protocol-Version: 2025-11-25")
	}
	return send(t, http.MethodPost, s.URL(), body, h...)
}

// initSession initializes an MCP session by raw HTTP and returns its id.
func initSession(t *testing.T, s *Server) string {
	t.Helper()
	ex := rpc(t, s, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	id := ex.header.Get("Mcp-Session-Id")
	if ex.status != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %q (session %q)", ex.status, ex.body, id)
	}
	if ex := rpc(t, s, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); ex.status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %q", ex.status, ex.body)
	}
	return id
}

// bearer adds the token to every request of the SDK client.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// client connects the go-sdk MCP client to s over loopback HTTP.
func client(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "bridge-test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: s.URL(),
		HTTPClient: &http.Client{Transport: bearer{s.Token().Reveal(), http.DefaultTransport}}}
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
