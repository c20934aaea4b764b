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

// Config says what the server expects: APIKey in x-api-key, answered 401
// as Anthropic does when wrong.
type Config = fakeserver.Config

// Server is a running fake; URL is the endpoint to configure,
// http://127.0.0.1:<port>. Its methods are safe for concurrent use.
type Server = fakeserver.Server[MessagesRequest, Reply]

// Request is one captured request; Decoded is its body as a MessagesRequest,
// zero if it did not decode.
type Request = fakeserver.Request[MessagesRequest]

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
func New(cfg Config) *Server { return fakeserver.New(wire, cfg) }

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}
