// Package fake is an in-process OpenAI Chat Completions server for tests
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
//		fake.Calls(fake.ToolCall{Name: "bash", Arguments: `{"command":"ls"}`}),
//		fake.Text("Files: a, b"),
//	)
//	// endpoint: srv.URL (http://127.0.0.1:<port>/v1)
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

// Config says what the server expects: APIKey as a bearer token, answered
// 401 as OpenAI does when wrong.
type Config = fakeserver.Config

// Server is a running fake; URL is the endpoint to configure,
// http://127.0.0.1:<port>/v1. Its methods are safe for concurrent use.
type Server = fakeserver.Server[ChatRequest, Reply]

// Request is one captured request; Decoded is its body as a ChatRequest,
// zero if it did not decode.
type Request = fakeserver.Request[ChatRequest]

// wire is Chat Completions for the shared fake core (DRV-5).
var wire = fakeserver.Wire[ChatRequest, Reply]{
	Base:         "/v1",
	Check:        checkHTTP,
	Decode:       decode,
	Model:        func(c ChatRequest) string { return c.Model },
	KeyHeader:    "Authorization",
	KeyPrefix:    "Bearer ",
	Unauthorized: struct{ Type, Message string }{"invalid_request_error", "Incorrect API key provided."},
	NoReplyType:  "server_error",
	WriteError:   writeError,
	WriteReply:   Reply.write,
	MaxOutput:    maxOutput,
	OverWindow:   overWindow,
}

// Tokens is the fake's count of a request body's input tokens
// (fakeserver.Tokens): what a test reports as usage.prompt_tokens.
func Tokens(body []byte) int64 { return fakeserver.Tokens(body) }

// maxOutput is the completion cap a request asks for.
func maxOutput(c ChatRequest) int64 {
	for _, n := range []*int{c.MaxTokens, c.MaxCompletionTokens} {
		if n != nil {
			return int64(*n)
		}
	}
	return 0
}

// overWindow is OpenAI's refusal of a request past the model's context
// length: 400 invalid_request_error, code context_length_exceeded.
func overWindow(w http.ResponseWriter, input, output, window int64) {
	msg := fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", window, input)
	if output > 0 {
		msg = fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", window, input+output, input, output)
	}
	body := fakeserver.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})
	fakeserver.WriteReply(w, http.StatusBadRequest, nil, body)
}

// New starts a server on a loopback port. Close it when done.
func New(cfg Config) *Server { return fakeserver.New(wire, cfg) }

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}})
}
