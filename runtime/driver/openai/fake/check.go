package fake

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/murmur-go/mur/runtime/driver/internal/fakeserver"
)

// ChatRequest is a request body as the fake reads it: exactly the fields the
// Chat Completions API defines that mur may send; any other is a failure.
type ChatRequest struct {
	Model               string        `json:"model"`
	Messages            []ChatMessage `json:"messages"`
	Tools               []Tool        `json:"tools"`
	MaxTokens           *int          `json:"max_tokens"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
}

// ChatMessage is one request message.
type ChatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []ToolCallWire  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// Text returns the message's content when it is a string.
func (m ChatMessage) Text() string {
	var s string
	_ = json.Unmarshal(m.Content, &s)
	return s
}

// ToolCallWire is an assistant message's tool call as sent back.
type ToolCallWire struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Tool is one tools[] entry.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func checkHTTP(r *http.Request) string {
	return fakeserver.CheckPost(r, "/v1/chat/completions")
}

// decode reads the body strictly and checks its shape (DRV-5).
func decode(body []byte) (ChatRequest, string) {
	req, p := fakeserver.DecodeStrict[ChatRequest](body)
	if p != "" {
		return req, p
	}
	return req, check(req)
}

func check(req ChatRequest) string {
	if req.Model == "" {
		return "model is empty"
	}
	if len(req.Messages) == 0 {
		return "messages is empty"
	}
	if req.MaxTokens != nil && req.MaxCompletionTokens != nil {
		return "both max_tokens and max_completion_tokens are set"
	}
	for _, n := range []*int{req.MaxTokens, req.MaxCompletionTokens} {
		if n != nil && *n <= 0 {
			return "the token cap is not positive"
		}
	}
	for i, t := range req.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return fmt.Sprintf("tools[%d] is not a named function", i)
		}
		var schema map[string]any
		if json.Unmarshal(t.Function.Parameters, &schema) != nil {
			return fmt.Sprintf("tools[%d].function.parameters is not an object", i)
		}
	}
	return checkMessages(req.Messages)
}

// checkMessages enforces the conversation rules the real API enforces: roles,
// system first, string contents, every tool call answered by a tool message
// right after its assistant message, and no tool message without its call.
func checkMessages(msgs []ChatMessage) string {
	open := map[string]bool{} // tool call ids awaiting their tool message
	for i, m := range msgs {
		where := fmt.Sprintf("messages[%d]", i)
		if m.Role != "tool" && len(open) > 0 {
			return fmt.Sprintf("%s (%s) comes before every tool call is answered", where, m.Role)
		}
		switch m.Role {
		case "system":
			if i != 0 {
				return where + " is a system message after the first"
			}
			if !isString(m.Content) {
				return where + ".content is not a string"
			}
		case "user":
			if !isString(m.Content) {
				return where + ".content is not a string"
			}
		case "assistant":
			if len(m.ToolCalls) == 0 && !isString(m.Content) {
				return where + " has neither content nor tool_calls"
			}
			if !isString(m.Content) && string(m.Content) != "null" {
				return where + ".content is neither a string nor null"
			}
			for j, c := range m.ToolCalls {
				if c.ID == "" || c.Type != "function" || c.Function.Name == "" {
					return fmt.Sprintf("%s.tool_calls[%d] lacks id, type function or name", where, j)
				}
				open[c.ID] = true
			}
		case "tool":
			if !open[m.ToolCallID] {
				return fmt.Sprintf("%s answers tool_call_id %q, which no open call has", where, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			if !isString(m.Content) {
				return where + ".content is not a string"
			}
		default:
			return fmt.Sprintf("%s has role %q", where, m.Role)
		}
	}
	if len(open) > 0 {
		return "the conversation ends with tool calls unanswered"
	}
	return ""
}

func isString(raw json.RawMessage) bool {
	var s string
	return len(raw) > 0 && json.Unmarshal(raw, &s) == nil
}
