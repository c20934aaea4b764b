package door

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/credential"
)

// errorCounter fails the fuzz target on any Error record: the door logs
// one for every panic it recovers.
type errorCounter struct{ n atomic.Int64 }

func (c *errorCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (c *errorCounter) Handle(context.Context, slog.Record) error {
	c.n.Add(1)
	return nil
}
func (c *errorCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *errorCounter) WithGroup(string) slog.Handler      { return c }

// answered is what the door (or net/http, for requests HTTP itself refuses)
// may answer. Anything else, or no answer at all, fails the target.
var answered = map[int]bool{200: true, 204: true, 304: true, 401: true, 403: true, 404: true, 413: true,
	400: true, 417: true, 431: true, 501: true} // 400, 417, 431, 501: net/http's own refusals

// FuzzDoor sends arbitrary requests over a real connection: the door never
// panics, never closes a connection without an answer, and answers valid
// JSON-RPC or a specified HTTP refusal. "$TOKEN" and "$JWT" in the headers
// stand for the operator token and a member token.
func FuzzDoor(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s.method, s.path, s.headers, []byte(s.body))
	}
	logs := &errorCounter{}
	form, priv := newFormation(f, "worker")
	td := startDoor(f, opts{auth: true, formation: form, immediate: true})
	td.door.log = slog.New(logs)
	td.reg.CloseFrames() // stream/watch answers its replay, then ends
	jwt, err := credential.Mint(priv, credential.MemberClaims(form.ID, "lead", "worker"))
	if err != nil {
		f.Fatal(err)
	}
	addr := strings.TrimPrefix(td.url, "http://")
	f.Fuzz(func(t *testing.T, method, path, headers string, body []byte) {
		method, path = oneToken(method), oneToken(path)
		if method == "" || !strings.HasPrefix(path, "/") {
			t.Skip()
		}
		var req bytes.Buffer
		req.WriteString(method + " " + path + " HTTP/1.1\r\nHost: door\r\nConnection: close\r\n")
		for _, line := range strings.Split(headers, "\n") {
			line = strings.NewReplacer("\r", "", "$TOKEN", td.tokens[OperatorCredential], "$JWT", string(jwt)).Replace(line)
			k, _, ok := strings.Cut(line, ":")
			if !ok || framing(k) {
				continue
			}
			req.WriteString(line + "\r\n")
		}
		req.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
		req.Write(body)
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.Write(req.Bytes()); err != nil {
			t.Fatalf("write request: %v", err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer to %q: %v", req.String(), err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("answer to %q cut short: %v", req.String(), err)
		}
		if !answered[resp.StatusCode] {
			t.Fatalf("status %d to %q", resp.StatusCode, req.String())
		}
		if resp.StatusCode == 200 && resp.Request == nil {
			checkAnswer(t, method, path, resp.Header.Get("Content-Type"), got)
		}
		if n := logs.n.Load(); n > 0 {
			t.Fatalf("the door logged %d errors (a recovered panic) on %q", n, req.String())
		}
	})
}

// oneToken keeps a request-line token well framed.
func oneToken(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\r' || r == '\n' || r == '\t' {
			return -1
		}
		return r
	}, s)
}

// framing reports headers the harness sets itself, so the fuzzer cannot
// desynchronize the connection.
func framing(k string) bool {
	switch strings.ToLower(strings.TrimSpace(k)) {
	case "content-length", "transfer-encoding", "connection", "host", "expect", "upgrade":
		return true
	}
	return false
}

// checkAnswer checks a 200: the card, the metrics, a JSON-RPC answer, or an
// SSE stream of JSON-RPC events or watch frames.
func checkAnswer(t *testing.T, method, path, ct string, body []byte) {
	t.Helper()
	switch {
	case method == http.MethodGet && strings.HasPrefix(path, a2aCardPath):
		if !json.Valid(body) {
			t.Fatalf("card is not JSON: %q", body)
		}
	case method == http.MethodGet && strings.HasPrefix(path, "/metrics"):
	case ct == "application/json":
		checkRPC(t, body)
	case ct == "text/event-stream":
		for _, ev := range strings.Split(string(body), "\n\n") {
			switch {
			case ev == "" || ev == ":heartbeat":
			case strings.HasPrefix(ev, "data: "):
				checkRPC(t, []byte(strings.TrimPrefix(ev, "data: ")))
			case strings.HasPrefix(ev, "id: ") || strings.HasPrefix(ev, "event: "):
				_, data, ok := strings.Cut(ev, "\ndata: ")
				if !ok || !json.Valid([]byte(data)) {
					t.Fatalf("bad watch frame %q", ev)
				}
			default:
				t.Fatalf("bad SSE event %q", ev)
			}
		}
	default:
		t.Fatalf("200 with content type %q: %q", ct, body)
	}
}

func checkRPC(t *testing.T, b []byte) {
	t.Helper()
	var r map[string]json.RawMessage
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("not JSON: %q (%v)", b, err)
	}
	_, hasID := r["id"]
	_, hasResult := r["result"]
	var e struct {
		Code    *int64  `json:"code"`
		Message *string `json:"message"`
	}
	hasError := r["error"] != nil && json.Unmarshal(r["error"], &e) == nil && e.Code != nil && e.Message != nil
	if string(r["jsonrpc"]) != `"2.0"` || !hasID || hasResult == hasError || len(r) != 3 {
		t.Fatalf("not a JSON-RPC answer: %q", b)
	}
}

type fuzzSeed struct{ method, path, headers, body string }

const v1 = "Content-Type: application/json\nA2A-Version: 1.0\n"

var fuzzSeeds = []fuzzSeed{
	{"GET", "/.well-known/agent-card.json", "", ""},
	{"GET", "/metrics", "", ""},
	{"POST", "/", v1, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", `{"jsonrpc":"2.0","id":"a","method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", `{"jsonrpc":"2.0","id":2,"method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":null}]}}}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN\nLast-Event-ID: 3", `{"jsonrpc":"2.0","id":3,"method":"stream/watch"}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", `{"jsonrpc":"2.0","id":4,"method":"ListTasks","params":{"pageSize":2}}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", `{"jsonrpc":"2.0","id":5,"method":"session/stop"}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", `{"jsonrpc":"2.0","id":6,"method":"GetExtendedAgentCard"}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", `{"jsonrpc":"2.0","id":7,"method":"CancelTask","params":{"id":""}}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", `{"jsonrpc":"2.0","id":8,"method":"SubscribeToTask","params":{"id":"x"}}`},
	{"POST", "/", v1 + "Authorization: Bearer $JWT", `{"jsonrpc":"2.0","id":9,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"configuration":{"returnImmediately":true}}}`},
	{"POST", "/", v1 + "Authorization: Bearer $JWT\nx-murmur-task-origin: peer", `{}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN\nx-murmur-task-origin: completion", `{"jsonrpc":"2.0","id":1,"method":"SendMessage"}`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", `[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}"},
	{"POST", "/", v1 + "Authorization: Bearer $TOKEN", `{"jsonrpc":"2.0","method":"SendMessage"}`},
	{"POST", "/message:send", v1 + "Authorization: Bearer $TOKEN", `{}`},
	{"DELETE", "/", "Authorization: Bearer a.b.c", ``},
}

// TestFuzzCorpus keeps testdata/fuzz/FuzzDoor in step with fuzzSeeds
// (rewrite with -update): one file per seed, in go test's corpus format.
func TestFuzzCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDoor")
	for i, s := range fuzzSeeds {
		content := "go test fuzz v1\nstring(" + strconv.Quote(s.method) + ")\nstring(" + strconv.Quote(s.path) +
			")\nstring(" + strconv.Quote(s.headers) + ")\n[]byte(" + strconv.Quote(s.body) + ")\n"
		path := filepath.Join(dir, "seed-"+strconv.Itoa(i))
		if golden.Update() {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("%s is not seed %d (run with -update): %v", path, i, err)
		}
	}
}
