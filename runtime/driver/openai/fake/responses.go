package fake

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/murmur-go/mur/runtime/driver/internal/fakeserver"
)

// ResponsesServer is the fake in harness mode (process.md PTEST-6): the
// Responses API Codex speaks — POST /v1/responses, streamed as
// response.created, response.output_item.added/.done,
// response.output_text.delta and response.completed with usage — built
// from the same Replies; a ToolCall is a function_call item carrying its
// Namespace.
type ResponsesServer = fakeserver.Server[ResponsesRequest, Reply]

// ResponsesCapture is one request a ResponsesServer captured.
type ResponsesCapture = fakeserver.Request[ResponsesRequest]

// ResponsesRequest is a harness's request body, read leniently.
type ResponsesRequest struct {
	Model        string            `json:"model"`
	Stream       bool              `json:"stream"`
	Instructions string            `json:"instructions"`
	Input        []json.RawMessage `json:"input"`
	Tools        []json.RawMessage `json:"tools"`
}

// InputItem is one input item, the fields a test asserts on.
type InputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
}

// Items decodes the request's input items.
func (r ResponsesRequest) Items() []InputItem {
	out := make([]InputItem, 0, len(r.Input))
	for _, raw := range r.Input {
		var it InputItem
		_ = json.Unmarshal(raw, &it)
		out = append(out, it)
	}
	return out
}

// Text is an item's text: a message's input_text/output_text parts, or a
// function_call_output's output.
func (it InputItem) Text() string {
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(it.Content, &parts)
	out := ""
	for _, p := range parts {
		out += p.Text
	}
	return out
}

var responsesWire = fakeserver.Wire[ResponsesRequest, Reply]{
	Base:         "/v1",
	Check:        func(r *http.Request) string { return fakeserver.CheckPost(r, "/v1/responses") },
	Decode:       decodeResponses,
	Model:        func(r ResponsesRequest) string { return r.Model },
	KeyHeader:    "Authorization",
	KeyPrefix:    "Bearer ",
	Unauthorized: struct{ Type, Message string }{"invalid_request_error", "Incorrect API key provided."},
	NoReplyType:  "server_error",
	WriteError:   writeError,
	WriteReply:   Reply.respond,
}

// NewResponses starts a harness-mode Responses server on a loopback port;
// URL ends in /v1, the base URL a codex model provider takes. cfg.APIKey ""
// = keyless, as codex's provider sends no key without one.
func NewResponses(cfg Config) *ResponsesServer { return fakeserver.New(responsesWire, cfg) }

func decodeResponses(body []byte) (ResponsesRequest, string) {
	var req ResponsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return req, "body: " + err.Error()
	}
	switch {
	case req.Model == "":
		return req, "model is empty"
	case !req.Stream:
		return req, "stream is not true"
	}
	return req, ""
}

// respond writes r as a Responses event stream (or, with Body set, the
// verbatim error).
func (r Reply) respond(w http.ResponseWriter, n int, model string) {
	if r.Body != "" || r.Status != 0 && r.Status != http.StatusOK {
		fakeserver.Send(w, r.Status, r.Header, r.Body, func() []byte { return nil })
		return
	}
	id := fmt.Sprintf("resp_fake_%d", n)
	evs := []fakeserver.Event{{Name: "response.created", Data: map[string]any{"type": "response.created",
		"response": map[string]any{"id": id, "object": "response", "status": "in_progress", "model": model, "output": []any{}}}}}
	var output []any
	add := func(item map[string]any, deltas ...fakeserver.Event) {
		i := len(output)
		evs = append(evs, fakeserver.Event{Name: "response.output_item.added", Data: map[string]any{"type": "response.output_item.added", "output_index": i, "item": item}})
		evs = append(evs, deltas...)
		done := map[string]any{}
		for k, v := range item {
			done[k] = v
		}
		done["status"] = "completed"
		if item["type"] == "message" {
			done["content"] = []any{map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}}
		}
		evs = append(evs, fakeserver.Event{Name: "response.output_item.done", Data: map[string]any{"type": "response.output_item.done", "output_index": i, "item": done}})
		output = append(output, done)
	}
	if r.Text != "" {
		mid := fmt.Sprintf("msg_fake_%d", n)
		add(map[string]any{"type": "message", "id": mid, "role": "assistant", "status": "in_progress", "content": []any{}},
			fakeserver.Event{Name: "response.output_text.delta", Data: map[string]any{"type": "response.output_text.delta",
				"item_id": mid, "output_index": 0, "content_index": 0, "delta": r.Text}})
	}
	for j, c := range r.ToolCalls {
		callID := c.ID
		if callID == "" {
			callID = fmt.Sprintf("call_fake_%d_%d", n, j)
		}
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_fake_%d_%d", n, j), "call_id": callID,
			"name": c.Name, "arguments": c.Arguments, "status": "completed"}
		if c.Namespace != "" {
			item["namespace"] = c.Namespace
		}
		add(item)
	}
	in, out, cached := int64(0), int64(0), int64(0)
	if u := r.Usage; u != nil {
		in, out = u.PromptTokens, u.CompletionTokens
		if u.CachedTokens != nil {
			cached = *u.CachedTokens
		}
	}
	evs = append(evs, fakeserver.Event{Name: "response.completed", Data: map[string]any{"type": "response.completed",
		"response": map[string]any{"id": id, "object": "response", "status": "completed", "model": model, "output": output,
			"usage": map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": cached},
				"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + out}}}})
	fakeserver.SSE(w, r.Header, evs)
}
