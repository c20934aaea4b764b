package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// blockingServer never answers: each handler waits until its client leaves.
func blockingServer(t *testing.T, onRequest func()) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so the server notices the client leaving
		if onRequest != nil {
			onRequest()
		}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // runs first: no handler outlives the test
	return srv
}

// hijackServer answers each request by writing prefix raw, then closing the
// connection: a reset or a cut-off answer.
func hijackServer(t *testing.T, prefix string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("Hijack() error = %v", err)
			return
		}
		io.WriteString(conn, prefix)
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // RST, not FIN
		}
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The door did not answer: call-member counts these toward "unreachable"
// (tools.md CALL-9, CALL-10), and Classify names why.
func TestIsNoAnswer_CALL10(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()

	cases := []struct {
		name string
		url  string
		cfg  func(*Config)
		ctx  func() (context.Context, context.CancelFunc)
		want Failure // Classify's reading, the reason a tool's text names
		or   Failure // another reading the kernel may give (an RST racing the read)
	}{
		{name: "connection refused", url: refused, want: ConnectionRefused},
		{name: "connection reset", url: hijackServer(t, "").URL, want: ConnectionReset},
		{name: "answer cut off", url: hijackServer(t, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"").URL, want: ClosedEarly, or: ConnectionReset},
		{name: "request timeout", url: blockingServer(t, nil).URL, cfg: func(c *Config) { c.RequestTimeout = 20 * time.Millisecond }, want: TimedOut},
		{name: "context deadline", url: blockingServer(t, nil).URL, ctx: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}, want: TimedOut},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{BaseURL: tc.url}
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			ctx, cancel := context.WithCancel(context.Background())
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			c := mustNew(t, cfg)
			_, err := c.GetTask(ctx, a2a.GetTaskRequest{ID: "tsk_1"})
			if !IsNoAnswer(err) {
				t.Fatalf("GetTask() error = %v, want a no-answer error", err)
			}
			var na *NoAnswerError
			if errors.As(err, &na); na.Method != "GetTask" {
				t.Errorf("NoAnswerError.Method = %q, want GetTask", na.Method)
			}
			if got := Classify(err); got != tc.want && (tc.or == NoAnswer || got != tc.or) {
				t.Errorf("Classify(%v) = %v, want %v", err, got, tc.want)
			}
			if _, err := c.Card(ctx); !IsNoAnswer(err) {
				t.Errorf("Card() error = %v, want a no-answer error", err)
			}
		})
	}
}

func TestRequestTimeoutCause(t *testing.T) {
	t.Parallel()
	c := mustNew(t, Config{BaseURL: blockingServer(t, nil).URL, RequestTimeout: time.Hour})
	_, err := c.GetTask(context.Background(), a2a.GetTaskRequest{ID: "t"}, WithTimeout(10*time.Millisecond))
	if !errors.Is(err, errRequestTimeout) || !IsNoAnswer(err) {
		t.Errorf("GetTask(WithTimeout) error = %v, want a no-answer timeout", err)
	}
}

// A caller that gives up is not a door that did not answer.
func TestCanceledIsNotNoAnswer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := mustNew(t, Config{BaseURL: blockingServer(t, cancel).URL})
	_, err := c.GetTask(ctx, a2a.GetTaskRequest{ID: "t"})
	if IsNoAnswer(err) || !errors.Is(err, context.Canceled) {
		t.Errorf("GetTask() after cancel error = %v, want context.Canceled and not no-answer", err)
	}
	for _, err := range c.SubscribeToTask(ctx, a2a.SubscribeToTaskRequest{ID: "t"}) {
		if IsNoAnswer(err) || !errors.Is(err, context.Canceled) {
			t.Errorf("SubscribeToTask() after cancel error = %v, want context.Canceled", err)
		}
	}
}
