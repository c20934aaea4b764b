package bridge

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
)

// captured is one request a real CLI sent a loopback bridge (PTEST-3):
// testdata/<cli>-<version>/mcp-requests.jsonl, the token and session id
// written <token> and <session>.
type captured struct {
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

var sessionHex = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestReplay replays each CLI's captured request sequence (Claude Code
// 2.1.328: server/discover first, initialize at 2025-11-25, GET; Codex
// 0.169.0: initialize at 2025-06-18, GET, tools/call with callId, DELETE
// at exit) against a bridge and keeps the answers golden (BRG-1…3, BRG-5).
func TestReplay(t *testing.T) {
	for _, cli := range []string{"claude-code-2.1.328", "codex-0.169.0"} {
		t.Run(cli, func(t *testing.T) {
			s := startTest(t, Config{}, 0)
			s.BeginRun()
			// The call's turn is 0: claude's by the tool_use id its event
			// line carries, codex's by its tool's name (its item id is not
			// the call's). Turn 1 is the newest, which a call not matched
			// would take.
			s.ToolUse(0, "toolu_01ABC", "bash")
			s.ToolUse(0, "", "bash")
			s.Turn(1)
			var b strings.Builder
			session := ""
			for _, c := range readCaptured(t, "testdata/"+cli+"/mcp-requests.jsonl") {
				var hs []string
				for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
					v := strings.ReplaceAll(c.Headers[k], "<token>", s.Token().Reveal())
					hs = append(hs, k+": "+strings.ReplaceAll(v, "<session>", session))
				}
				ex := send(t, c.Method, s.URL(), c.Body, hs...)
				if id := ex.header.Get("Mcp-Session-Id"); id != "" {
					if !sessionHex.MatchString(id) {
						t.Errorf("Mcp-Session-Id %q is not 32 hex digits", id)
					}
					session = id
				}
				fmt.Fprintf(&b, "> %s %s\n%s\n", c.Method, Path, c.Body)
				b.WriteString(transcript(ex, session))
			}
			golden.Check(t, "replay-"+cli, b.String())
		})
	}
}

// TestWire checks the answers BRG-1/2 fix outside the CLIs' own sequences:
// the token, paths, HTTP methods, the body bound, methods and
// notifications the CLIs do not send (resources/read of a file reaches
// nothing: BRG-4, the resource lists being empty), tools/call without a
// name, and DELETE ending the session.
func TestWire(t *testing.T) {
	s := startTest(t, Config{}, 0)
	tok := "Authorization: Bearer " + s.Token().Reveal()
	ct, acc := "Content-Type: application/json", "Accept: application/json, text/event-stream"
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	var b strings.Builder
	step := func(what string, ex exchange) {
		fmt.Fprintf(&b, "> %s\n%s", what, transcript(ex, ""))
	}
	step("no Authorization", send(t, "POST", s.URL(), ping, ct, acc))
	step("another token", send(t, "POST", s.URL(), ping, ct, acc, "Authorization: Bearer mtt_"+strings.Repeat("A", 43)))
	step("Basic scheme", send(t, "POST", s.URL(), ping, ct, acc, "Authorization: Basic "+s.Token().Reveal()))
	step("token without scheme", send(t, "POST", s.URL(), ping, ct, acc, "Authorization: "+s.Token().Reveal()))
	step("another path", send(t, "POST", strings.TrimSuffix(s.URL(), Path)+"/other", ping, ct, acc, tok))
	step("GET", send(t, "GET", s.URL(), "", tok, "Accept: text/event-stream"))
	step("PUT", send(t, "PUT", s.URL(), ping, tok, ct))
	session := initSession(t, s)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"debug"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}`,
		`{"jsonrpc":"2.0","id":51,"method":"resources/list","params":{"cursor":"x"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"prompts/list"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"arguments":{}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":""}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":7}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
	} {
		step(body, rpc(t, s, session, body))
	}
	step("DELETE", send(t, "DELETE", s.URL(), "", tok, "Mcp-Session-Id: "+session))
	step("ping after DELETE", rpc(t, s, session, ping))
	step("DELETE without a session", send(t, "DELETE", s.URL(), "", tok))
	golden.Check(t, "wire", b.String())
}

// TestBodyBound: a body over 8 MiB is 413, by Content-Length or read
// (chunked); 8 MiB itself is read (BRG-1).
func TestBodyBound(t *testing.T) {
	s := startTest(t, Config{}, 0)
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", MaxBody) + `"}}`
	if ex := rpc(t, s, "", big); ex.status != http.StatusRequestEntityTooLarge || ex.body != bodyTooLarge {
		t.Errorf("by Content-Length: %d %q", ex.status, ex.body)
	}
	req, err := http.NewRequestWithContext(t.Context(), "POST", s.URL(), &chunked{strings.NewReader(big)})
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.Token().Reveal())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.ContentLength != 0 || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked: length %d, status %d", req.ContentLength, resp.StatusCode)
	}
	exact := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`
	exact += strings.Repeat("x", MaxBody-len(exact)-3) + `"}}`
	if ex := rpc(t, s, initSession(t, s), exact); len(exact) != MaxBody || ex.status != http.StatusOK {
		t.Errorf("%d bytes: %d %q", len(exact), ex.status, ex.body)
	}
}

// chunked hides its length, so the client sends the body chunked.
type chunked struct{ r *strings.Reader }

func (c *chunked) Read(p []byte) (int, error) { return c.r.Read(p) }

// TestNegotiation: initialize answers the client's version when it is
// 2025-03-26, 2025-06-18 or 2025-11-25, else 2025-11-25 (BRG-2).
func TestNegotiation(t *testing.T) {
	s := startTest(t, Config{}, 0)
	for asked, want := range map[string]string{
		"2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18", "2025-11-25": "2025-11-25",
		"2024-11-05": "2025-11-25", "2026-07-28": "2025-11-25", "1999-01-01": "2025-11-25",
	} {
		ex := rpc(t, s, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+asked+
			`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		wantBody := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"` + want +
			`","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"mur","version":"0.1.0"}}}`
		if ex.status != http.StatusOK || ex.body != wantBody || !sessionHex.MatchString(ex.header.Get("Mcp-Session-Id")) {
			t.Errorf("%s: %d %s %q", asked, ex.status, ex.body, ex.header.Get("Mcp-Session-Id"))
		}
	}
}

// transcript renders a response: status, the headers BRG-1/2 fix, body;
// the session id written <session>.
func transcript(ex exchange, session string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "< %d\n", ex.status)
	for _, h := range []string{"Content-Type", "Www-Authenticate", "Allow", "Mcp-Session-Id"} {
		if v := ex.header.Get(h); v != "" {
			if session != "" {
				v = strings.ReplaceAll(v, session, "<session>")
			}
			fmt.Fprintf(&b, "< %s: %s\n", h, v)
		}
	}
	body := ex.body
	if session != "" {
		body = strings.ReplaceAll(body, session, "<session>")
	}
	fmt.Fprintf(&b, "%s\n\n", strings.TrimSuffix(body, "\n"))
	return b.String()
}

func readCaptured(t *testing.T, path string) []captured {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []captured
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c captured
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil || len(out) == 0 {
		t.Fatalf("%s: %v (%d requests)", path, err, len(out))
	}
	return out
}
