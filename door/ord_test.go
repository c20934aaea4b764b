package door

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
)

const getTask = `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"tsk_none"}}`

// wantRefusal checks an HTTP refusal: status, www-authenticate, body
// (golden when name is set, empty otherwise) and Connection: close (ORD-3).
func wantRefusal(t *testing.T, rep reply, status int, www, goldenName string) {
	t.Helper()
	if rep.status != status {
		t.Fatalf("status = %d, want %d (body %q)", rep.status, status, rep.body)
	}
	if got := rep.header.Get("Www-Authenticate"); got != www {
		t.Errorf("www-authenticate = %q, want %q", got, www)
	}
	if goldenName == "" {
		if rep.body != "" {
			t.Errorf("body = %q, want empty", rep.body)
		}
		return
	}
	if ct := rep.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content-type = %q, want application/json", ct)
	}
	golden.Check(t, goldenName, rep.body)
}

// TestAuthRefusals_AUTH7 pins every AUTH-7 401 with its header and body.
func TestAuthRefusals_AUTH7(t *testing.T) {
	td := startDoor(t, opts{auth: true, declared: []Credential{{Name: "reader", Scopes: []string{"GetTask"}}}})
	realm := `Bearer realm="coder"`
	invalid := `Bearer realm="coder", error="invalid_token"`
	op := td.tokens[OperatorCredential]
	tests := []struct {
		name   string
		hdr    []string
		status int
		www    string
		golden string
	}{
		{"no header", nil, 401, realm, "auth_unauthenticated"},
		{"not bearer", []string{"Authorization: Basic b3A6b3A="}, 401, invalid, "auth_invalid_token"},
		{"bearer without token", []string{"Authorization: Bearer"}, 401, invalid, "auth_invalid_token"},
		{"unknown token", []string{"Authorization: Bearer mdt_AAAA"}, 401, invalid, "auth_invalid_token"},
		{"altered token", []string{"Authorization: Bearer " + op + "x"}, 401, invalid, "auth_invalid_token"},
		{"two headers", []string{"Authorization: Bearer " + op, "Authorization: Bearer " + op}, 401, invalid, "auth_invalid_token"},
		{"jwt at a door in no formation", []string{"Authorization: Bearer a.b.c"}, 401, invalid, "auth_invalid_token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantRefusal(t, td.post("", getTask, tt.hdr...), tt.status, tt.www, tt.golden)
		})
	}
	t.Run("bearer matches case-insensitively", func(t *testing.T) {
		r := td.call("", getTask, "Authorization: bEaReR "+op)
		if r.Error == nil || r.Error.Code != -32001 {
			t.Errorf("answer = %+v, want -32001", r.Error)
		}
	})
	t.Run("401 on any path before the route (ORD-2)", func(t *testing.T) {
		wantRefusal(t, td.do(http.MethodGet, "/message:send", "", ""), 401, realm, "auth_unauthenticated")
		wantRefusal(t, td.do(http.MethodPost, a2aCardPath, "", "{}"), 401, realm, "auth_unauthenticated")
	})
	t.Run("insufficient scope (ORD-1 step 11)", func(t *testing.T) {
		rep := td.post(td.tokens["reader"], sendBody("hi", ""))
		wantRefusal(t, rep, 403, `Bearer realm="coder", error="insufficient_scope", scope="SendMessage"`, "auth_insufficient_scope")
		if n := len(td.reg.Counts()); n != 0 {
			t.Errorf("a refused send stored tasks: %v", td.reg.Counts())
		}
	})
	t.Run("door tokens reach GetExtendedAgentCard without a scope (AUTH-3)", func(t *testing.T) {
		r := td.call(td.tokens["reader"], `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}`)
		if r.Error != nil {
			t.Errorf("GetExtendedAgentCard error = %+v", r.Error)
		}
	})
}

const a2aCardPath = "/.well-known/agent-card.json"

// TestPeerConsent_PEER2 pins the byte-identical 403 peer_not_accepted, after
// the token and before the route (ORD-1 step 3).
func TestPeerConsent_PEER2(t *testing.T) {
	td := startDoor(t, opts{auth: true})
	op := td.tokens[OperatorCredential]
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodPost, "/", sendBody("hi", "")},
		{http.MethodPost, "/", "not json"},
		{http.MethodGet, "/nowhere", ""},
		{http.MethodPost, "/", ""},
	} {
		rep := td.do(tc.method, tc.path, op, tc.body, "x-murmur-task-origin:  PEER ")
		wantRefusal(t, rep, 403, "", "peer_not_accepted")
	}
	// The token comes first (ORD-1 step 2).
	wantRefusal(t, td.post("", sendBody("hi", ""), "x-murmur-task-origin: peer"), 401, `Bearer realm="coder"`, "auth_unauthenticated")
	// A door that accepts peers lets the task in, as origin peer.
	td2 := startDoor(t, opts{peerTasks: true, noExecutor: true})
	tk := td2.call("", sendBody("hi", ""), "x-murmur-task-origin: peer").task(t, true)
	if tk.Status.State != "TASK_STATE_SUBMITTED" {
		t.Errorf("peer task state = %s", tk.Status.State)
	}
}

// TestRouteRefusals_DOOR4_DOOR5 checks ORD-1 step 5: 404 for anything but
// POST / with a JSON content type and a body, 413 over the limit.
func TestRouteRefusals_DOOR4_DOOR5(t *testing.T) {
	td := startDoor(t, opts{maxBody: 1024})
	for _, tc := range []struct {
		name, method, path, body string
		hdr                      []string
	}{
		{"GET /", http.MethodGet, "/", "", nil},
		{"REST path", http.MethodPost, "/message:nowhere", sendBody("hi", ""), nil},
		{"empty body", http.MethodPost, "/", "", nil},
		{"POST card", http.MethodPost, a2aCardPath, "{}", nil},
		{"DELETE metrics", http.MethodDelete, "/metrics", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantRefusal(t, td.do(tc.method, tc.path, "", tc.body, tc.hdr...), 404, "", "")
		})
	}
	t.Run("a2a+json", func(t *testing.T) {
		r := td.call("", getTask, "Content-Type:", "Content-Type: application/a2a+json")
		if r.Error == nil || r.Error.Code != -32001 {
			t.Errorf("answer = %+v, want -32001", r.Error)
		}
	})
	for _, ct := range []string{"", "text/plain", "application/jsonx", "application/json-patch+json"} {
		t.Run("media type "+ct, func(t *testing.T) {
			r := td.call("", getTask, "Content-Type:", "Content-Type: "+ct)
			if r.Error == nil || r.Error.Code != -32005 || string(r.ID) != "1" {
				t.Fatalf("answer = %s %+v, want -32005 echoing id 1", r.ID, r.Error)
			}
			if d := r.Error.Data; len(d) != 1 || d[0].Reason != "CONTENT_TYPE_NOT_SUPPORTED" || d[0].Metadata["mediaType"] != ct {
				t.Errorf("data = %+v", d)
			}
		})
	}
	t.Run("media type of a body that is not JSON", func(t *testing.T) {
		r := td.call("", "not json", "Content-Type:", "Content-Type: text/plain")
		if r.Error == nil || r.Error.Code != -32005 || string(r.ID) != "null" {
			t.Errorf("answer = %s %+v, want -32005 with id null", r.ID, r.Error)
		}
	})
	t.Run("content type with parameters", func(t *testing.T) {
		r := td.call("", getTask, "Content-Type:", "Content-Type: Application/JSON; charset=utf-8")
		if r.Error == nil || r.Error.Code != -32001 {
			t.Errorf("answer = %+v, want -32001", r.Error)
		}
	})
	t.Run("over the limit", func(t *testing.T) {
		big := `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"` + strings.Repeat("x", 2000) + `"}}`
		wantRefusal(t, td.post("", big), 413, "", "")
	})
	t.Run("chunked over the limit", func(t *testing.T) {
		big := `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"` + strings.Repeat("x", 2000) + `"}}`
		req, _ := http.NewRequest(http.MethodPost, td.url, io.MultiReader(strings.NewReader(big)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 413 { // a reader of unknown length goes chunked
			t.Errorf("status = %d, want 413", resp.StatusCode)
		}
	})
	t.Run("chunked accepted", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, td.url, io.MultiReader(strings.NewReader(getTask)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), `"code":-32001`) {
			t.Errorf("chunked GetTask = %d %s", resp.StatusCode, b)
		}
	})
}

// TestDefaultBodyLimit_DOOR5 refuses a body one byte over 8 MiB, by its
// Content-Length, before reading it.
func TestDefaultBodyLimit_DOOR5(t *testing.T) {
	td := startDoor(t, opts{})
	rep := td.post("", strings.Repeat(" ", DefaultMaxBody+1))
	wantRefusal(t, rep, 413, "", "")
}

// TestRefusalDrain_ORD3 sends a refused request with a body on a raw
// connection: the client reads the whole refusal, then the door closes.
func TestRefusalDrain_ORD3(t *testing.T) {
	td := startDoor(t, opts{auth: true})
	conn, err := net.Dial("tcp", strings.TrimPrefix(td.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := strings.Repeat("x", 32<<10)
	req := "POST / HTTP/1.1\r\nHost: door\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read refusal: %v", err)
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read refusal body: %v", err)
	}
	if resp.StatusCode != 401 || !resp.Close {
		t.Errorf("refusal = %d close=%v, want 401 with Connection: close", resp.StatusCode, resp.Close)
	}
	golden.Check(t, "auth_unauthenticated", string(got))
	if n, err := br.ReadByte(); err != io.EOF {
		t.Errorf("after the refusal read %v, %v; want EOF", n, err)
	}
}

// TestRefusalBeforeContinue_ORD2_ORD3: a client that waits for "100
// Continue" before sending its body gets the refusal first, never an
// invitation to upload: the door answers, then drains (ORD-3), and reads no
// body before the token check (ORD-1 step 2).
func TestRefusalBeforeContinue_ORD2_ORD3(t *testing.T) {
	td := startDoor(t, opts{auth: true})
	conn, err := net.Dial("tcp", strings.TrimPrefix(td.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := "POST / HTTP/1.1\r\nHost: door\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n" +
		"Content-Length: 100000\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("read the first answer line: %v", err)
	}
	if line != "HTTP/1.1 401 Unauthorized\r\n" {
		t.Fatalf("first answer line = %q, want the 401 before any 100 Continue", line)
	}
}
