// Package fakeserver is the core of the HTTP drivers' fakes (capsule.md
// DRV-9), runtime/driver/openai/fake and runtime/driver/anthropic/fake: a
// loopback server that checks each request against its provider's wire,
// answers a wrong API key 401 as the provider does, answers the rest from a
// queue of scripted replies (then a handler), and captures every request and
// every check failure. A Wire says what differs between the providers; each
// provider's package names Server, Request and Config for its own B and R.
package fakeserver

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Request is one captured request. Decoded is its body as the provider's
// fake reads it; zero if it did not decode.
type Request[B any] struct {
	Method  string
	Path    string
	Header  http.Header
	Body    []byte
	Decoded B
}

// Config says what a fake expects of the requests it gets.
type Config struct {
	// APIKey is the key requests must carry in the wire's KeyHeader (after
	// its KeyPrefix); another one, or none, is answered 401 as the provider
	// does. "" = keyless: a request carrying KeyHeader is a check failure.
	APIKey string
	// Model, when set, is the model every request must name.
	Model string
	// ContextWindow, when set, is the model's window in tokens: a request
	// whose input (Tokens of its body) and output cap together exceed it is
	// refused as the provider refuses it (the wire's OverWindow), and is no
	// check failure. Wires without OverWindow ignore it.
	ContextWindow int64
}

// Tokens is a fake's count of a request body's input tokens: one for each
// four bytes, rounded up. Tests report it in usage to stand for the
// provider's own count.
func Tokens(body []byte) int64 { return (int64(len(body)) + 3) / 4 }

// Wire is what one provider's fake says about its API: B is its request
// body, R its scripted reply. Every field but Base, KeyPrefix,
// MaxOutput and OverWindow must be set.
type Wire[B, R any] struct {
	// Base is the path a driver's endpoint ends in ("/v1" or ""): Server.URL
	// is the server's root followed by Base.
	Base string
	// Check checks a request's method, path and headers; "" = well formed.
	Check func(*http.Request) string
	// Decode reads a body strictly and checks its shape; problem "" = well
	// formed. b is kept even with a problem.
	Decode func(body []byte) (b B, problem string)
	// Model returns the model a body names.
	Model func(B) string
	// KeyHeader carries the API key, after KeyPrefix ("Bearer " or "").
	KeyHeader, KeyPrefix string
	// Unauthorized is the error type and message of the 401 for a wrong key.
	Unauthorized struct{ Type, Message string }
	// NoReplyType is the error type of the 500 for a request no reply was
	// queued for.
	NoReplyType string
	// WriteError writes an error answer in the provider's shape.
	WriteError func(w http.ResponseWriter, status int, typ, msg string)
	// WriteReply writes reply r to request number n (from 0), which named
	// model: a method expression such as Reply.write.
	WriteReply func(r R, w http.ResponseWriter, n int, model string)
	// MaxOutput is the output cap a body asks for (0 = none) and
	// OverWindow writes the provider's refusal of a request past
	// Config.ContextWindow: input tokens, the output cap, the window. Both
	// nil: the wire has no window.
	MaxOutput  func(B) int64
	OverWindow func(w http.ResponseWriter, input, output, window int64)
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server[B, R any] struct {
	// URL is the endpoint to configure: http://127.0.0.1:<port>, then the
	// wire's Base.
	URL string

	wire     Wire[B, R]
	key      string
	model    string
	window   int64
	srv      *httptest.Server
	mu       sync.Mutex
	queue    []R
	handler  func(Request[B]) R
	requests []Request[B]
	failures []string
	served   int
}

// New starts a server on a loopback port that expects what cfg says. Close
// it when done.
func New[B, R any](wire Wire[B, R], cfg Config) *Server[B, R] {
	s := &Server[B, R]{wire: wire, key: cfg.APIKey, model: cfg.Model, window: cfg.ContextWindow}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + wire.Base
	return s
}

// Close shuts the server down, waiting for requests in flight.
func (s *Server[B, R]) Close() { s.srv.Close() }

// Enqueue appends replies; each request takes the next one.
func (s *Server[B, R]) Enqueue(r ...R) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r...)
}

// SetHandler sets a function answering requests once the queue is empty
// (nil = none: an unqueued request is answered 500 and is a failure).
func (s *Server[B, R]) SetHandler(h func(Request[B]) R) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// Requests returns a copy of every request received, in arrival order.
func (s *Server[B, R]) Requests() []Request[B] {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request[B](nil), s.requests...)
}

// Failures returns the check failures so far: requests of the wrong shape
// and requests that found no reply. A test asserts it is empty.
func (s *Server[B, R]) Failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.failures...)
}

// Pending returns how many queued replies are still unsent.
func (s *Server[B, R]) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

func (s *Server[B, R]) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	req := Request[B]{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if err != nil {
		s.fail(w, req, "read body: "+err.Error())
		return
	}
	problem := s.wire.Check(r)
	if problem == "" {
		req.Decoded, problem = s.wire.Decode(body)
	}
	model := s.wire.Model(req.Decoded)
	if problem == "" && s.model != "" && model != s.model {
		problem = fmt.Sprintf("model %q, want %q", model, s.model)
	}
	if problem == "" && s.key == "" && r.Header.Get(s.wire.KeyHeader) != "" {
		problem = "keyless endpoint got an " + s.wire.KeyHeader + " header"
	}
	if problem != "" {
		s.fail(w, req, problem)
		return
	}
	if s.key != "" && r.Header.Get(s.wire.KeyHeader) != s.wire.KeyPrefix+s.key {
		s.record(req)
		s.wire.WriteError(w, http.StatusUnauthorized, s.wire.Unauthorized.Type, s.wire.Unauthorized.Message)
		return
	}
	if s.window > 0 && s.wire.OverWindow != nil {
		if input, output := Tokens(body), s.wire.MaxOutput(req.Decoded); input+output > s.window {
			s.record(req)
			s.wire.OverWindow(w, input, output, s.window)
			return
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	reply, ok := s.next(req)
	n := s.served
	s.served++
	s.mu.Unlock()
	if !ok {
		s.mu.Lock()
		s.failures = append(s.failures, "no reply queued for request "+fmt.Sprint(n))
		s.mu.Unlock()
		s.wire.WriteError(w, http.StatusInternalServerError, s.wire.NoReplyType, "fake: no reply queued")
		return
	}
	s.wire.WriteReply(reply, w, n, model)
}

// next pops the next reply, else asks the handler; s.mu is held.
func (s *Server[B, R]) next(req Request[B]) (R, bool) {
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		return r, true
	}
	if s.handler != nil {
		return s.handler(req), true
	}
	var none R
	return none, false
}

func (s *Server[B, R]) record(req Request[B]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
}

func (s *Server[B, R]) fail(w http.ResponseWriter, req Request[B], problem string) {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.failures = append(s.failures, problem)
	s.mu.Unlock()
	s.wire.WriteError(w, http.StatusBadRequest, "invalid_request_error", "fake: "+problem)
}
