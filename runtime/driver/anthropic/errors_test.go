package anthropic_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/anthropic"
	"github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	"github.com/murmur-go/mur/runtime/driver/internal/drivertest"
)

func ask(d *anthropic.Driver) (*driver.Response, error) {
	return d.Complete(context.Background(), &driver.Request{Model: "m", MaxTokens: 5,
		Messages: []driver.Message{msg(driver.RoleUser, driver.TextBlock("q"))}})
}

// TestErrors covers DRV-4 and LOOP-19 against the fake: 401 at once, 429 and
// 5xx retried, another 4xx not, malformed bodies.
func TestErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 300) // 600 bytes
	tests := []struct {
		name       string
		key        string
		replies    []fake.Reply
		wantCause  string
		wantReason string
		wantWaits  []time.Duration
		wantReqs   int
	}{
		{"401", "wrong", nil, "credential_rejected",
			"the provider rejected the inference credential ANTHROPIC_API_KEY from the environment (HTTP 401); it is read once at launch", nil, 1},
		{"429 Retry-After then 529 then ok", "k", []fake.Reply{fake.RateLimited("4"), fake.Status(529, "overloaded"), fake.Text("ok")},
			"", "", []time.Duration{4 * time.Second, 2 * time.Second}, 3},
		{"5xx exhausted", "k", []fake.Reply{fake.Status(500, "a"), fake.Status(500, "b"), fake.Status(503, "c")}, "driver_error",
			`anthropic endpoint answered HTTP 503: {"error":{"message":"c","type":"fake_error"},"type":"error"}`,
			[]time.Duration{time.Second, 2 * time.Second}, 3},
		{"413 not retried", "k", []fake.Reply{{Status: 413, Body: long}}, "driver_error",
			"anthropic endpoint answered HTTP 413: " + strings.Repeat("é", 256), nil, 1},
		{"malformed", "k", []fake.Reply{fake.Malformed(`{"type":"message","content":`)}, "invalid_response",
			"anthropic response could not be read: unexpected end of JSON input", nil, 1},
		{"no content", "k", []fake.Reply{fake.Malformed(`{"type":"message","stop_reason":"end_turn"}`)}, "invalid_response",
			"anthropic response could not be read: the reply holds no content", nil, 1},
		{"error on 200", "k", []fake.Reply{fake.Malformed(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)}, "invalid_response",
			"anthropic response could not be read: the reply is an error: overloaded_error: Overloaded", nil, 1},
		{"tool_use without id", "k", []fake.Reply{fake.Malformed(`{"type":"message","content":[{"type":"tool_use","name":"x","input":{}}]}`)}, "invalid_response",
			"anthropic response could not be read: content[0]: a tool_use block lacks its id or name", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.New(fake.Config{APIKey: "k"})
			defer srv.Close()
			srv.Enqueue(tt.replies...)
			d, sl := newDriver(t, srv, tt.key)
			r, err := ask(d)
			if tt.wantCause == "" {
				if err != nil || r.Text() != "ok" {
					t.Fatalf("Complete() = %v, %v", r, err)
				}
			} else if driver.Cause(err) != tt.wantCause || driver.Reason(err) != tt.wantReason {
				t.Errorf("Complete() error = %s: %q\nwant %s: %q", driver.Cause(err), driver.Reason(err), tt.wantCause, tt.wantReason)
			}
			if got := sl.Got(); !slices.Equal(got, tt.wantWaits) {
				t.Errorf("waits = %v, want %v", got, tt.wantWaits)
			}
			if n := len(srv.Requests()); n != tt.wantReqs {
				t.Errorf("requests = %d, want %d", n, tt.wantReqs)
			}
			drivertest.NoFailures(t, srv)
		})
	}
}

// TestConnectionError: retried twice, then `anthropic request failed: …`.
func TestConnectionError(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{})
	srv.Close()
	d, sl := newDriver(t, srv, "")
	_, err := ask(d)
	var re *driver.RequestError
	if !errors.As(err, &re) || !strings.HasPrefix(driver.Reason(err), `anthropic request failed: Post "`+srv.URL+`/v1/messages": `) {
		t.Fatalf("Complete() error = %v", err)
	}
	if got := sl.Got(); !slices.Equal(got, []time.Duration{time.Second, 2 * time.Second}) {
		t.Errorf("waits = %v", got)
	}
}

// TestFakeChecksShape: the fake refuses what the real API refuses.
func TestFakeChecksShape(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{})
	defer srv.Close()
	d, _ := newDriver(t, srv, "")
	_, err := d.Complete(context.Background(), &driver.Request{Model: "m", Messages: []driver.Message{
		msg(driver.RoleAssistant, driver.TextBlock("I speak first")),
	}})
	var te *driver.TransportError
	if !errors.As(err, &te) || te.Status != 400 {
		t.Fatalf("error = %v, want HTTP 400", err)
	}
	if f := srv.Failures(); len(f) != 1 || f[0] != "messages[0] is not a user message" {
		t.Errorf("failures = %q", f)
	}
}

// TestNotFound: a 404 is never bare: its reason names the URL posted to and
// the endpoint rule, since a wrong endpoint and an unknown model both answer
// it (DRV-6).
func TestNotFound(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "k"})
	defer srv.Close()
	srv.Enqueue(fake.Status(404, "model: m"))
	d, _ := newDriver(t, srv, "k")
	_, err := ask(d)
	want := `anthropic endpoint answered HTTP 404: {"error":{"message":"model: m","type":"fake_error"},"type":"error"} (POST ` + srv.URL +
		"/v1/messages; a 404 names a model or an endpoint the server does not know: endpoint is the base URL the Anthropic SDK takes, such as https://api.anthropic.com, without /v1, and requests go to <endpoint>/v1/messages)"
	if driver.Cause(err) != "driver_error" || driver.Reason(err) != want {
		t.Errorf("Complete() error = %s: %q\nwant driver_error: %q", driver.Cause(err), driver.Reason(err), want)
	}
}

// TestContextWindowRefused_DRV9: a fake given a window answers as
// Anthropic does — 400 invalid_request_error — a request whose input and
// max_tokens exceed it ("input length and `max_tokens` exceed context
// limit") and one whose input alone does ("prompt is too long"), each
// once and unretried; a request that fits is served.
func TestContextWindowRefused_DRV9(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "k", ContextWindow: 200})
	defer srv.Close()
	srv.SetHandler(func(fake.Request) fake.Reply { return fake.Text("ok") })
	d, sl := newDriver(t, srv, "k")
	if _, err := ask(d); err != nil {
		t.Fatalf("a request that fits: %v", err)
	}
	for _, tc := range []struct {
		size int
		want string // %d: the input tokens
	}{
		{600, "input length and `max_tokens` exceed context limit: %d + 50 > 200, decrease input length or `max_tokens` and try again"},
		{900, "prompt is too long: %d tokens > 200 maximum"},
	} {
		_, err := d.Complete(context.Background(), &driver.Request{Model: "m", MaxTokens: 50,
			Messages: []driver.Message{msg(driver.RoleUser, driver.TextBlock(strings.Repeat("x", tc.size)))}})
		reqs := srv.Requests()
		want := `anthropic endpoint answered HTTP 400: {"error":{"message":"` + fmt.Sprintf(tc.want, fake.Tokens(reqs[len(reqs)-1].Body)) + `","type":"invalid_request_error"},"type":"error"}`
		if driver.Reason(err) != want || driver.Cause(err) != "driver_error" {
			t.Errorf("error = %q (%s), want %q", driver.Reason(err), driver.Cause(err), want)
		}
	}
	if n := len(srv.Requests()); n != 3 || len(sl.Got()) != 0 || len(srv.Failures()) != 0 {
		t.Errorf("requests %d, waits %v, failures %v; want 3, none, none", n, sl.Got(), srv.Failures())
	}
}
