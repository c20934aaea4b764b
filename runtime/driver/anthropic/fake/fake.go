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
	MaxOutput:    func(m MessagesRequest) int64 { return int64(m.MaxTokens) },
	OverWindow:   overWindow,
}

// Tokens is the fake's count of a request body's input tokens
// (fakeserver.Tokens): what a test reports as usage.input_tokens.
func Tokens(body []byte) int64 { return fakeserver.Tokens(body) }

// overWindow is Anthropic's refusal of a request past the model's context
// window: 400 invalid_request_error, "prompt is too long" when the input
// alone exceeds it, else the input and max_tokens together.
func overWindow(w http.ResponseWriter, input, output, window int64) {
	msg := fmt.Sprintf("input length and `max_tokens` exceed context limit: %d + %d > %d, decrease input length or `max_tokens` and try again", input, output, window)
	if input > window {
		msg = fmt.Sprintf("prompt is too long: %d tokens > %d maximum", input, window)
	}
	body := fakeserver.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
	fakeserver.WriteReply(w, http.StatusBadRequest, nil, body)
}

// New starts a server on a loopback port. Close it when done.
func New(cfg Config) *Server { return fakeserver.New(wire, cfg) }

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}
