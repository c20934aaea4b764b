package fake

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/murmur-go/mur/runtime/driver/internal/fakeserver"
)

// Reply is one scripted answer. With Body set it is sent verbatim under
// Status (default 200) — errors and malformed bodies; otherwise a Messages
// reply is built from Text, ToolUses, StopReason and Usage.
type Reply struct {
	Status     int               // 0 = 200
	Header     map[string]string // extra headers, e.g. Retry-After
	Body       string            // verbatim body; "" = build one
	Text       string            // a text block first; "" = none
	ToolUses   []ToolUse         // tool_use blocks after it
	StopReason string            // "" = "tool_use" with tool uses, else "end_turn"
	Usage      *Usage            // nil = no usage object
}

// ToolUse is one tool_use block. Input is raw JSON, sent as given ("" = {}).
type ToolUse struct {
	ID    string // "" = toolu_fake_<request>_<i>
	Name  string
	Input string
}

// Usage is a reply's usage object; nil cache fields are omitted.
type Usage struct {
	InputTokens              int64
	OutputTokens             int64
	CacheReadInputTokens     *int64
	CacheCreationInputTokens *int64
}

// Text returns a reply ending the turn with text.
func Text(s string) Reply { return Reply{Text: s} }

// Uses returns a reply calling tools.
func Uses(uses ...ToolUse) Reply { return Reply{ToolUses: uses} }

// Status returns an error reply with an Anthropic-style error body.
func Status(code int, message string) Reply {
	body, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "fake_error", "message": message}})
	return Reply{Status: code, Body: string(body)}
}

// RateLimited returns a 429 carrying Retry-After (omitted when "").
func RateLimited(retryAfter string) Reply {
	r := Status(http.StatusTooManyRequests, "rate limited")
	r.Header = fakeserver.RetryAfter(retryAfter)
	return r
}

// Malformed returns a 200 whose body is not a Messages reply.
func Malformed(body string) Reply { return Reply{Body: body} }

// Int64 returns a pointer to n, for the Usage cache fields.
func Int64(n int64) *int64 { return &n }

func (r Reply) write(w http.ResponseWriter, n int, model string) {
	fakeserver.Send(w, r.Status, r.Header, r.Body, func() []byte { return r.build(n, model) })
}

func (r Reply) build(n int, model string) []byte {
	content := []any{}
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	for i, u := range r.ToolUses {
		id := u.ID
		if id == "" {
			id = fmt.Sprintf("toolu_fake_%d_%d", n, i)
		}
		input := json.RawMessage(u.Input)
		if u.Input == "" {
			input = json.RawMessage(`{}`)
		}
		content = append(content, map[string]any{"type": "tool_use", "id": id, "name": u.Name, "input": input})
	}
	stop := r.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(r.ToolUses) > 0 {
			stop = "tool_use"
		}
	}
	out := map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
	}
	if u := r.Usage; u != nil {
		usage := map[string]any{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens}
		if u.CacheReadInputTokens != nil {
			usage["cache_read_input_tokens"] = *u.CacheReadInputTokens
		}
		if u.CacheCreationInputTokens != nil {
			usage["cache_creation_input_tokens"] = *u.CacheCreationInputTokens
		}
		out["usage"] = usage
	}
	b, err := json.Marshal(out)
	if err != nil { // a malformed ToolUse.Input: send it raw so the test sees it
		return []byte(fmt.Sprintf(`{"fake_error":%q}`, err.Error()))
	}
	return b
}
