package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/murmur-go/mur/runtime/driver/internal/fakeserver"
)

// Reply is one scripted answer. With Body set it is sent verbatim under
// Status (default 200) — errors and malformed bodies; otherwise a Chat
// Completions reply is built from Text, ToolCalls, FinishReason and Usage.
type Reply struct {
	Status       int               // 0 = 200
	Header       map[string]string // extra headers, e.g. Retry-After
	Body         string            // verbatim body; "" = build one
	Text         string            // message.content; "" = null
	ToolCalls    []ToolCall        // message.tool_calls
	FinishReason string            // "" = "tool_calls" with calls, else "stop"
	Usage        *Usage            // nil = no usage object
}

// ToolCall is one tool call of a reply. Arguments is sent as given: a JSON
// string's content, so a malformed one tests DRV-5's invalid arguments.
type ToolCall struct {
	ID        string // "" = call_fake_<request>_<i>
	Name      string
	Arguments string
	// Namespace is a Responses function_call's namespace (harness mode:
	// codex's mcp__mur); Chat Completions has none.
	Namespace string
}

// Usage is a reply's usage object; CachedTokens nil omits
// prompt_tokens_details.
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
	CachedTokens     *int64
}

// Text returns a reply ending the turn with text.
func Text(s string) Reply { return Reply{Text: s} }

// Calls returns a reply calling tools.
func Calls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// Status returns an error reply with an OpenAI-style error body.
func Status(code int, message string) Reply {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "fake_error", "code": nil}})
	return Reply{Status: code, Body: string(body)}
}

// RateLimited returns a 429 carrying Retry-After (omitted when "").
func RateLimited(retryAfter string) Reply {
	r := Status(http.StatusTooManyRequests, "Rate limit reached")
	r.Header = fakeserver.RetryAfter(retryAfter)
	return r
}

// Malformed returns a 200 whose body is not a Chat Completions reply.
func Malformed(body string) Reply { return Reply{Body: body} }

// Int64 returns a pointer to n, for Usage.CachedTokens.
func Int64(n int64) *int64 { return &n }

func (r Reply) write(w http.ResponseWriter, n int, model string) {
	fakeserver.Send(w, r.Status, r.Header, r.Body, func() []byte { return r.build(n, model) })
}

func (r Reply) build(n int, model string) []byte {
	msg := map[string]any{"role": "assistant", "content": nil}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	var calls []map[string]any
	for i, c := range r.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_fake_%d_%d", n, i)
		}
		calls = append(calls, map[string]any{"id": id, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	finish := r.FinishReason
	if finish == "" {
		finish = "stop"
		if len(calls) > 0 {
			finish = "tool_calls"
		}
	}
	out := map[string]any{
		"id": "chatcmpl-fake-" + strconv.Itoa(n), "object": "chat.completion", "created": 1760000000, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
	}
	if u := r.Usage; u != nil {
		usage := map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
			"total_tokens": u.PromptTokens + u.CompletionTokens}
		if u.CachedTokens != nil {
			usage["prompt_tokens_details"] = map[string]any{"cached_tokens": *u.CachedTokens}
		}
		out["usage"] = usage
	}
	b, _ := json.Marshal(out) // maps of plain values always marshal
	return b
}
