// Package fake is an in-process Anthropic Messages API server for tests
// (capsule.md DRV-9): it checks each request's method, path, headers and body
// shape, answers from a queue of scripted replies, injects 401/429/5xx and
// malformed bodies, and captures every request. It uses only net/http/httptest,
// so tests in any package can point a driver — or a `mur run` child process,
// through a manifest's `endpoint:` — at it.
//
// # Example
//
//	srv := fake.New(fake.Config{APIKey: "sk-test"})
//	defer srv.Close()
//	srv.Enqueue(
//		fake.Uses(fake.ToolUse{Name: "bash", Input: `{"command":"ls"}`}),
//		fake.Text("Files: a, b"),
//	)
//	// endpoint: srv.URL (http://127.0.0.1:<port>)
//	…
//	if f := srv.Failures(); len(f) > 0 {
//		t.Errorf("bad requests: %v", f)
//	}
package fake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Config says what the server expects.
type Config struct {
	// APIKey is the x-api-key requests must carry; another one (or none)
	// is answered 401 as Anthropic does. "" = keyless: a request carrying an
	// x-api-key header is a check failure.
	APIKey string
	// Model, when set, is the model every request must name.
	Model string
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the endpoint to configure: http://127.0.0.1:<port>.
	URL string

	cfg      Config
	srv      *httptest.Server
	mu       sync.Mutex
	queue    []Reply
	handler  func(Request) Reply
	requests []Request
	failures []string
	served   int
}

// New starts a server on a loopback port. Close it when done.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down, waiting for requests in flight.
func (s *Server) Close() { s.srv.Close() }

// Enqueue appends replies; each request takes the next one.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r...)
}

// SetHandler sets a function answering requests once the queue is empty
// (nil = none: an unqueued request is answered 500 and is a failure).
func (s *Server) SetHandler(h func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// Requests returns a copy of every request received, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Failures returns the check failures so far: requests of the wrong shape and
// requests that found no reply. A test asserts it is empty.
func (s *Server) Failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.failures...)
}

// Pending returns how many queued replies are still unsent.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Request is one captured request.
type Request struct {
	Method   string
	Path     string
	Header   http.Header
	Body     []byte
	Messages MessagesRequest // Body decoded; zero if it did not decode
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if err != nil {
		s.fail(w, req, "read body: "+err.Error())
		return
	}
	problem := checkHTTP(r)
	if problem == "" {
		req.Messages, problem = decode(body)
	}
	if problem == "" && s.cfg.Model != "" && req.Messages.Model != s.cfg.Model {
		problem = fmt.Sprintf("model %q, want %q", req.Messages.Model, s.cfg.Model)
	}
	if problem == "" && s.cfg.APIKey == "" && r.Header.Get("x-api-key") != "" {
		problem = "keyless endpoint got an x-api-key header"
	}
	if problem != "" {
		s.fail(w, req, problem)
		return
	}
	if s.cfg.APIKey != "" && r.Header.Get("x-api-key") != s.cfg.APIKey {
		s.record(req)
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
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
		writeError(w, http.StatusInternalServerError, "api_error", "fake: no reply queued")
		return
	}
	reply.write(w, n, req.Messages.Model)
}

// next pops the next reply, else asks the handler; s.mu is held.
func (s *Server) next(req Request) (Reply, bool) {
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		return r, true
	}
	if s.handler != nil {
		return s.handler(req), true
	}
	return Reply{}, false
}

func (s *Server) record(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
}

func (s *Server) fail(w http.ResponseWriter, req Request, problem string) {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.failures = append(s.failures, problem)
	s.mu.Unlock()
	writeError(w, http.StatusBadRequest, "invalid_request_error", "fake: "+problem)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}
