package fakeserver

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// body is the toy wire's request body.
type body struct {
	Model string `json:"model"`
	Text  string `json:"text"`
}

// toy is a wire of its own: POST /v1/x, key in "X-Key" after "K ", replies
// are strings sent as "<n>:<model>:<reply>", errors as "<type>: <msg>".
var toy = Wire[body, string]{
	Check: func(r *http.Request) string { return CheckPost(r, "/v1/x") },
	Decode: func(b []byte) (body, string) {
		v, p := DecodeStrict[body](b)
		if p == "" && v.Text == "" {
			return v, "text is empty"
		}
		return v, p
	},
	Model:        func(b body) string { return b.Model },
	KeyHeader:    "X-Key",
	KeyPrefix:    "K ",
	Unauthorized: struct{ Type, Message string }{"auth", "bad key"},
	NoReplyType:  "none",
	WriteError: func(w http.ResponseWriter, status int, typ, msg string) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, typ+": "+msg)
	},
	WriteReply: func(r string, w http.ResponseWriter, n int, model string) {
		WriteReply(w, 0, map[string]string{"X-N": strconv.Itoa(n)}, []byte(strconv.Itoa(n)+":"+model+":"+r))
	},
}

func post(t *testing.T, url, path, key, contentType, payload string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if key != "" {
		req.Header.Set("X-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestServe_DRV9 walks the core through queue, handler, a missing reply, a
// wrong key and malformed requests, checking answers, captures and failures.
func TestServe_DRV9(t *testing.T) {
	t.Parallel()
	s := New(toy, Config{APIKey: "sekrit", Model: "m1"})
	defer s.Close()
	s.Enqueue("first", "second")
	if s.Pending() != 2 {
		t.Fatalf("Pending() = %d, want 2", s.Pending())
	}
	good := `{"model":"m1","text":"hi"}`
	steps := []struct {
		name, path, key, ct, payload string
		status                       int
		answer                       string
	}{
		{"queued 1", "/v1/x", "K sekrit", "application/json", good, 200, "0:m1:first"},
		{"queued 2", "/v1/x", "K sekrit", "application/json; charset=utf-8", good, 200, "1:m1:second"},
		{"no reply", "/v1/x", "K sekrit", "application/json", good, 500, "none: fake: no reply queued"},
		{"wrong key", "/v1/x", "K other", "application/json", good, 401, "auth: bad key"},
		{"no key", "/v1/x", "", "application/json", good, 401, "auth: bad key"},
		{"path", "/v1/y", "K sekrit", "application/json", good, 400, "invalid_request_error: fake: path /v1/y, want /v1/x"},
		{"content type", "/v1/x", "K sekrit", "text/plain", good, 400, "invalid_request_error: fake: Content-Type text/plain, want application/json"},
		{"unknown field", "/v1/x", "K sekrit", "application/json", `{"model":"m1","text":"a","x":1}`, 400, `invalid_request_error: fake: body: json: unknown field "x"`},
		{"trailing", "/v1/x", "K sekrit", "application/json", good + `{}`, 400, "invalid_request_error: fake: body: trailing data"},
		{"shape", "/v1/x", "K sekrit", "application/json", `{"model":"m1"}`, 400, "invalid_request_error: fake: text is empty"},
		{"model", "/v1/x", "K sekrit", "application/json", `{"model":"m2","text":"a"}`, 400, `invalid_request_error: fake: model "m2", want "m1"`},
	}
	for _, st := range steps {
		status, answer := post(t, s.URL, st.path, st.key, st.ct, st.payload)
		if status != st.status || answer != st.answer {
			t.Errorf("%s: %d %q, want %d %q", st.name, status, answer, st.status, st.answer)
		}
	}
	s.SetHandler(func(r Request[body]) string { return "handled " + r.Decoded.Text })
	if status, answer := post(t, s.URL, "/v1/x", "K sekrit", "application/json", good); status != 200 || answer != "3:m1:handled hi" {
		t.Errorf("handler: %d %q", status, answer)
	}
	wantFailures := []string{
		"no reply queued for request 2",
		"path /v1/y, want /v1/x",
		"Content-Type text/plain, want application/json",
		`body: json: unknown field "x"`,
		"body: trailing data",
		"text is empty",
		`model "m2", want "m1"`,
	}
	if got := s.Failures(); !slices.Equal(got, wantFailures) {
		t.Errorf("Failures() =\n%q\nwant\n%q", got, wantFailures)
	}
	reqs := s.Requests()
	if len(reqs) != len(steps)+1 {
		t.Fatalf("Requests() = %d, want %d", len(reqs), len(steps)+1)
	}
	if r := reqs[0]; r.Method != "POST" || r.Path != "/v1/x" || string(r.Body) != good || r.Decoded.Text != "hi" || r.Header.Get("X-Key") != "K sekrit" {
		t.Errorf("request 0 = %+v", r)
	}
	if r := reqs[7]; r.Decoded != (body{}) {
		t.Errorf("an undecodable request kept %+v", r.Decoded)
	}
	if r := reqs[9]; r.Decoded.Model != "m1" {
		t.Errorf("a request of the wrong shape lost its body: %+v", r.Decoded)
	}
	if s.Pending() != 0 {
		t.Errorf("Pending() = %d, want 0", s.Pending())
	}
}

// TestKeyless: without a key, a request carrying the key header fails.
func TestKeyless(t *testing.T) {
	t.Parallel()
	s := New(toy, Config{})
	defer s.Close()
	s.Enqueue("ok", "unused")
	if status, answer := post(t, s.URL, "/v1/x", "", "application/json", `{"model":"any","text":"a"}`); status != 200 || answer != "0:any:ok" {
		t.Errorf("keyless: %d %q", status, answer)
	}
	status, answer := post(t, s.URL, "/v1/x", "K x", "application/json", `{"model":"any","text":"a"}`)
	if want := "invalid_request_error: fake: keyless endpoint got an X-Key header"; status != 400 || answer != want {
		t.Errorf("key on a keyless endpoint: %d %q, want 400 %q", status, answer, want)
	}
	if got := s.Failures(); !slices.Equal(got, []string{"keyless endpoint got an X-Key header"}) {
		t.Errorf("Failures() = %q", got)
	}
	if s.Pending() != 1 {
		t.Errorf("Pending() = %d, want 1", s.Pending())
	}
}
