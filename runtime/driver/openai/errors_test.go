package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/internal/drivertest"
	"github.com/murmur-go/mur/runtime/driver/openai"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
)

func ask(d *openai.Driver) (*driver.Response, error) {
	return d.Complete(context.Background(), &driver.Request{Model: "m", Messages: []driver.Message{userMsg("q")}, MaxTokens: 10})
}

// TestCredentialRejected: 401 → credential_rejected at once, no retry (DRV-4).
func TestCredentialRejected(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "right"})
	defer srv.Close()
	d, sl := newDriver(t, srv, "wrong", nil)
	_, err := ask(d)
	var ce *driver.CredentialError
	if !errors.As(err, &ce) || ce.Credential != "OPENAI_API_KEY" || ce.Status != 401 || ce.Kind != "openai" {
		t.Fatalf("Complete() error = %v, want a CredentialError", err)
	}
	want := "the provider rejected the inference credential OPENAI_API_KEY from the environment (HTTP 401); it is read once at launch"
	if driver.Cause(err) != "credential_rejected" || driver.Reason(err) != want {
		t.Errorf("cause, reason = %q, %q", driver.Cause(err), driver.Reason(err))
	}
	if n := len(srv.Requests()); n != 1 || len(sl.Got()) != 0 {
		t.Errorf("requests = %d, waits = %v; want 1 and none", n, sl.Got())
	}
}

// TestRetries: 429 and 5xx retried twice with 1 s, 2 s or Retry-After (≤ 30 s).
func TestRetries(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 10, 20, 14, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		replies   []fake.Reply
		wantWaits []time.Duration
		wantErr   string // "" = success
	}{
		{"recovers after 429 and 503",
			[]fake.Reply{fake.RateLimited(""), fake.Status(503, "overloaded"), fake.Text("ok")},
			[]time.Duration{time.Second, 2 * time.Second}, ""},
		{"Retry-After seconds",
			[]fake.Reply{fake.RateLimited("7"), fake.Text("ok")}, []time.Duration{7 * time.Second}, ""},
		{"Retry-After capped at 30 s",
			[]fake.Reply{fake.RateLimited("120"), fake.Text("ok")}, []time.Duration{30 * time.Second}, ""},
		{"Retry-After date",
			[]fake.Reply{fake.RateLimited(now.Add(5 * time.Second).Format(http.TimeFormat)), fake.Text("ok")},
			[]time.Duration{5 * time.Second}, ""},
		{"Retry-After on 503",
			[]fake.Reply{withHeader(fake.Status(503, "busy"), "Retry-After", "3"), fake.Text("ok")},
			[]time.Duration{3 * time.Second}, ""},
		{"Retry-After garbage falls back",
			[]fake.Reply{fake.RateLimited("soon"), fake.Text("ok")}, []time.Duration{time.Second}, ""},
		{"exhausted after three attempts",
			[]fake.Reply{fake.Status(500, "a"), fake.Status(502, "b"), fake.Status(500, "boom")},
			[]time.Duration{time.Second, 2 * time.Second},
			`openai endpoint answered HTTP 500: {"error":{"code":null,"message":"boom","type":"fake_error"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.New(fake.Config{APIKey: "k"})
			defer srv.Close()
			srv.Enqueue(tt.replies...)
			d, sl := newDriver(t, srv, "k", func(c *openai.Config) { c.Now = func() time.Time { return now } })
			r, err := ask(d)
			if tt.wantErr == "" {
				if err != nil || r.Text() != "ok" {
					t.Fatalf("Complete() = %v, %v", r, err)
				}
			} else if driver.Cause(err) != "driver_error" || driver.Reason(err) != tt.wantErr {
				t.Fatalf("Complete() error = %q (%s), want %q", driver.Reason(err), driver.Cause(err), tt.wantErr)
			}
			if got := sl.Got(); !slices.Equal(got, tt.wantWaits) {
				t.Errorf("waits = %v, want %v", got, tt.wantWaits)
			}
			if n := len(srv.Requests()); n != len(tt.replies) {
				t.Errorf("requests = %d, want %d", n, len(tt.replies))
			}
			drivertest.NoFailures(t, srv)
		})
	}
}

func withHeader(r fake.Reply, k, v string) fake.Reply {
	r.Header = map[string]string{k: v}
	return r
}

// TestOther4xx: no retry, the first 512 body bytes (DRV-4, LOOP-19).
func TestOther4xx(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "k"})
	defer srv.Close()
	long := strings.Repeat("x", 600)
	srv.Enqueue(fake.Reply{Status: 400, Body: long})
	d, sl := newDriver(t, srv, "k", nil)
	_, err := ask(d)
	var te *driver.TransportError
	if !errors.As(err, &te) || te.Status != 400 || te.Body != long[:512] {
		t.Fatalf("Complete() error = %v", err)
	}
	if want := "openai endpoint answered HTTP 400: " + long[:512]; driver.Reason(err) != want || driver.Cause(err) != "driver_error" {
		t.Errorf("reason = %q", driver.Reason(err))
	}
	if len(srv.Requests()) != 1 || len(sl.Got()) != 0 {
		t.Errorf("retried a 400: %d requests, waits %v", len(srv.Requests()), sl.Got())
	}
}

// TestConnectionError: retried twice, then `openai request failed: <error>`.
func TestConnectionError(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{})
	url := srv.URL
	srv.Close() // nothing listens there now
	sl := &drivertest.Sleeps{}
	d, err := openai.New(openai.Config{Endpoint: url, Sleep: sl.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ask(d)
	var re *driver.RequestError
	if !errors.As(err, &re) || driver.Cause(err) != "driver_error" ||
		!strings.HasPrefix(driver.Reason(err), "openai request failed: Post \""+url+"/chat/completions\": ") {
		t.Fatalf("Complete() error = %v", err)
	}
	if got := sl.Got(); !slices.Equal(got, []time.Duration{time.Second, 2 * time.Second}) {
		t.Errorf("waits = %v", got)
	}
}

// TestMalformed: an unreadable success body is invalid_response (LOOP-19).
func TestMalformed(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"choices": [`:   "openai response could not be read: unexpected end of JSON input",
		`{"choices": []}`: "openai response could not be read: the reply holds no choices",
		`{"choices": [{"finish_reason": "stop"}]}`:                   "openai response could not be read: choices[0] holds no message",
		`{"choices": [{"message": {"content": 5}}]}`:                 "openai response could not be read: choices[0].message.content is neither a string nor a list of parts",
		`<html>gateway</html>`:                                       "openai response could not be read: invalid character '<' looking for beginning of value",
		`{"choices": [{"message": {"content": "a"}}], "usage": "x"}`: "openai response could not be read: usage: unexpected JSON string",
		`{"choices": {}}`:                                            "openai response could not be read: choices: unexpected JSON object",
		`[1]`:                                                        "openai response could not be read: the reply: unexpected JSON array",
	} {
		srv := fake.New(fake.Config{APIKey: "k"})
		srv.Enqueue(fake.Malformed(body))
		d, _ := newDriver(t, srv, "k", nil)
		_, err := ask(d)
		srv.Close()
		if !errors.Is(err, driver.ErrInvalidResponse) || driver.Cause(err) != "invalid_response" || driver.Reason(err) != want {
			t.Errorf("body %q: error = %q (%s), want %q", body, driver.Reason(err), driver.Cause(err), want)
		}
	}
}

// TestRequestTimeout: config.request_timeout_secs bounds an attempt; a
// silent endpoint is not retried.
func TestRequestTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)
	sl := &drivertest.Sleeps{}
	d, err := openai.New(openai.Config{Endpoint: hang.URL + "/v1", Sleep: sl.Sleep,
		Options: driver.Options{RequestTimeout: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ask(d)
	if want := "openai request failed: no answer within 20ms (config.request_timeout_secs)"; driver.Reason(err) != want {
		t.Errorf("reason = %q, want %q", driver.Reason(err), want)
	}
	if len(sl.Got()) != 0 {
		t.Errorf("a timeout was retried: %v", sl.Got())
	}
}

// TestCanceledDuringRetry: ctx ending while waiting to retry ends the call.
func TestCanceledDuringRetry(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{})
	defer srv.Close()
	srv.Enqueue(fake.Status(500, "x"), fake.Text("never"))
	ctx, cancel := context.WithCancel(context.Background())
	d, err := openai.New(openai.Config{Endpoint: srv.URL, Sleep: func(ctx context.Context, _ time.Duration) error {
		cancel()
		return ctx.Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Complete(ctx, &driver.Request{Model: "m", Messages: []driver.Message{userMsg("q")}})
	if !errors.Is(err, context.Canceled) || srv.Pending() != 1 {
		t.Errorf("error = %v, pending = %d", err, srv.Pending())
	}
}

// TestFakeChecksShape: the fake refuses a conversation the real API refuses.
func TestFakeChecksShape(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{})
	defer srv.Close()
	d, _ := newDriver(t, srv, "", nil)
	orphan := &driver.Request{Model: "m", Messages: []driver.Message{userMsg("q"),
		{Role: driver.RoleTool, Blocks: []driver.Block{driver.ToolResultBlock("nope", "x", false)}}}}
	_, err := d.Complete(context.Background(), orphan)
	var te *driver.TransportError
	if !errors.As(err, &te) || te.Status != 400 {
		t.Fatalf("error = %v, want HTTP 400", err)
	}
	if f := srv.Failures(); len(f) != 1 || !strings.Contains(f[0], `tool_call_id "nope"`) {
		t.Errorf("failures = %q", f)
	}
	_, _ = ask(d) // nothing queued: a 500, retried twice
	if f := srv.Failures(); len(f) != 4 || f[1] != "no reply queued for request 0" || f[3] != "no reply queued for request 2" {
		t.Errorf("failures = %q", f)
	}
}

// TestNotFound: a 404 is never bare: its reason names the URL posted to and
// the endpoint rule (an Ollama endpoint without /v1 answers 404 at
// /chat/completions; DRV-5).
func TestNotFound(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "k"})
	defer srv.Close()
	srv.Enqueue(fake.Status(404, "page not found"))
	d, _ := newDriver(t, srv, "k", nil)
	_, err := ask(d)
	want := `openai endpoint answered HTTP 404: {"error":{"code":null,"message":"page not found","type":"fake_error"}} (POST ` + srv.URL +
		"/chat/completions; a 404 names a model or an endpoint the server does not know: endpoint is the base URL the OpenAI SDK takes, such as https://api.openai.com/v1, or http://localhost:11434/v1 for Ollama, and requests go to <endpoint>/chat/completions)"
	if driver.Cause(err) != "driver_error" || driver.Reason(err) != want {
		t.Errorf("Complete() error = %s: %q\nwant driver_error: %q", driver.Cause(err), driver.Reason(err), want)
	}
}

// TestContextWindowRefused_DRV9: a fake given a window answers a request
// whose input and completion cap exceed it as OpenAI does — 400
// context_length_exceeded — once, unretried, and serves one that fits.
func TestContextWindowRefused_DRV9(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "k", ContextWindow: 200})
	defer srv.Close()
	srv.SetHandler(func(fake.Request) fake.Reply { return fake.Text("ok") })
	d, sl := newDriver(t, srv, "k", nil)
	if _, err := ask(d); err != nil {
		t.Fatalf("a request that fits: %v", err)
	}
	_, err := d.Complete(context.Background(), &driver.Request{Model: "m", Messages: []driver.Message{userMsg(strings.Repeat("x", 800))}, MaxTokens: 10})
	reqs := srv.Requests()
	input := fake.Tokens(reqs[len(reqs)-1].Body)
	want := fmt.Sprintf(`openai endpoint answered HTTP 400: {"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 200 tokens. However, you requested %d tokens (%d in the messages, 10 in the completion). Please reduce the length of the messages or completion.","param":"messages","type":"invalid_request_error"}}`, input+10, input)
	if driver.Reason(err) != want || driver.Cause(err) != "driver_error" {
		t.Errorf("error = %q (%s), want %q", driver.Reason(err), driver.Cause(err), want)
	}
	if len(reqs) != 2 || len(sl.Got()) != 0 || len(srv.Failures()) != 0 {
		t.Errorf("requests %d, waits %v, failures %v; want 2, none, none", len(reqs), sl.Got(), srv.Failures())
	}
}
