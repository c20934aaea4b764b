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
	"net/http"

	"github.com/murmur-go/mur/runtime/driver/internal/fakeserver"
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

	core *fakeserver.Server[MessagesRequest, Reply]
}

// wire is the Messages API for the shared fake core (DRV-6).
var wire = fakeserver.Wire[MessagesRequest, Reply]{
	Check:        checkHTTP,
	Decode:       decode,
	Model:        func(m MessagesRequest) string { return m.Model },
	KeyHeader:    "x-api-key",
	Unauthorized: struct{ Type, Message string }{"authentication_error", "invalid x-api-key"},
	NoReplyType:  "api_error",
	WriteError:   writeError,
	WriteReply:   Reply.write,
}

// New starts a server on a loopback port. Close it when done.
func New(cfg Config) *Server {
	core := fakeserver.New(wire, cfg.APIKey, cfg.Model)
	return &Server{URL: core.URL, core: core}
}

// Close shuts the server down, waiting for requests in flight.
func (s *Server) Close() { s.core.Close() }

// Enqueue appends replies; each request takes the next one.
func (s *Server) Enqueue(r ...Reply) { s.core.Enqueue(r...) }

// SetHandler sets a function answering requests once the queue is empty
// (nil = none: an unqueued request is answered 500 and is a failure).
func (s *Server) SetHandler(h func(Request) Reply) {
	if h == nil {
		s.core.SetHandler(nil)
		return
	}
	s.core.SetHandler(func(r fakeserver.Request[MessagesRequest]) Reply { return h(request(r)) })
}

// Requests returns a copy of every request received, in arrival order.
func (s *Server) Requests() []Request {
	var out []Request
	for _, r := range s.core.Requests() {
		out = append(out, request(r))
	}
	return out
}

// Failures returns the check failures so far: requests of the wrong shape and
// requests that found no reply. A test asserts it is empty.
func (s *Server) Failures() []string { return s.core.Failures() }

// Pending returns how many queued replies are still unsent.
func (s *Server) Pending() int { return s.core.Pending() }

// Request is one captured request.
type Request struct {
	Method   string
	Path     string
	Header   http.Header
	Body     []byte
	Messages MessagesRequest // Body decoded; zero if it did not decode
}

func request(r fakeserver.Request[MessagesRequest]) Request {
	return Request{Method: r.Method, Path: r.Path, Header: r.Header, Body: r.Body, Messages: r.Decoded}
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}
