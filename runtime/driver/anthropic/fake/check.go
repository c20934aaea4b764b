package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/murmur-go/mur/runtime/driver/internal/fakeserver"
)

// MessagesRequest is a request body as the fake reads it: exactly the fields
// of the Messages API that mur may send; any other is a failure.
type MessagesRequest struct {
	Model     string    `json:"model"`
	MaxTokens int       `json:"max_tokens"`
	Tools     []Tool    `json:"tools"`
	System    System    `json:"system"`
	Messages  []Message `json:"messages"`
}

// System is the system prompt: a string, or text blocks (which may carry a
// cache breakpoint). nil when the request has none.
type System []SystemBlock

// SystemBlock is one text block of the system prompt.
type SystemBlock struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *CacheControl `json:"cache_control"`
}

// CacheControl is a prompt-cache breakpoint.
type CacheControl struct {
	Type string `json:"type"`
}

// UnmarshalJSON reads the string form as one text block.
func (s *System) UnmarshalJSON(data []byte) error {
	var text string
	if json.Unmarshal(data, &text) == nil {
		*s = System{{Type: "text", Text: text}}
		return nil
	}
	var blocks []SystemBlock
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&blocks); err != nil {
		return err
	}
	*s = blocks
	return nil
}

// Text is the system prompt's text, its blocks joined.
func (s System) Text() string {
	var parts []string
	for _, b := range s {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "")
}

// Message is one request message; mur always sends content as blocks.
type Message struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

// Block is one content block of a request message.
type Block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   *string         `json:"content"`
	IsError   *bool           `json:"is_error"`
}

// Tool is one tools[] entry.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *CacheControl   `json:"cache_control"`
}

func checkHTTP(r *http.Request) string {
	if p := fakeserver.CheckPost(r, "/v1/messages"); p != "" {
		return p
	}
	if v := r.Header.Get("anthropic-version"); v != "2023-06-01" {
		return "anthropic-version " + v + ", want 2023-06-01"
	}
	return ""
}

// decode reads the body strictly and checks its shape (DRV-6).
func decode(body []byte) (MessagesRequest, string) {
	req, p := fakeserver.DecodeStrict[MessagesRequest](body)
	if p != "" {
		return req, p
	}
	switch {
	case req.Model == "":
		return req, "model is empty"
	case req.MaxTokens <= 0:
		return req, "max_tokens is missing or not positive"
	case len(req.Messages) == 0:
		return req, "messages is empty"
	}
	breakpoints := 0
	for i, t := range req.Tools {
		var schema map[string]any
		if t.Name == "" || json.Unmarshal(t.InputSchema, &schema) != nil || schema["type"] != "object" {
			return req, fmt.Sprintf("tools[%d] lacks a name or an object input_schema", i)
		}
		if p := checkCacheControl(t.CacheControl, &breakpoints); p != "" {
			return req, fmt.Sprintf("tools[%d].cache_control %s", i, p)
		}
	}
	for i, b := range req.System {
		if b.Type != "text" || b.Text == "" {
			return req, fmt.Sprintf("system[%d] is not a non-empty text block", i)
		}
		if p := checkCacheControl(b.CacheControl, &breakpoints); p != "" {
			return req, fmt.Sprintf("system[%d].cache_control %s", i, p)
		}
	}
	return req, checkMessages(req.Messages)
}

// checkCacheControl checks one cache breakpoint as the API does: type
// "ephemeral", at most four in a request.
func checkCacheControl(c *CacheControl, n *int) string {
	if c == nil {
		return ""
	}
	*n++
	switch {
	case c.Type != "ephemeral":
		return fmt.Sprintf("has type %q, want ephemeral", c.Type)
	case *n > 4:
		return "is a fifth breakpoint; the API allows four"
	}
	return ""
}

// checkMessages enforces the conversation rules the real API enforces: it
// starts with a user message, roles alternate, text is not empty, every
// tool_use is answered by a tool_result in the very next message, and there
// the tool_result blocks come first.
func checkMessages(msgs []Message) string {
	if msgs[0].Role != "user" {
		return "messages[0] is not a user message"
	}
	var open map[string]bool // tool_use ids the next message must answer
	for i, m := range msgs {
		where := fmt.Sprintf("messages[%d]", i)
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("%s has role %q", where, m.Role)
		}
		if i > 0 && msgs[i-1].Role == m.Role {
			return where + " has the same role as the message before it"
		}
		if len(m.Content) == 0 {
			return where + " has no content"
		}
		next := map[string]bool{}
		results := true // still in the leading tool_result blocks
		for j, b := range m.Content {
			at := fmt.Sprintf("%s.content[%d]", where, j)
			if b.Type != "tool_result" {
				results = false
			}
			switch b.Type {
			case "text":
				if b.Text == nil || *b.Text == "" {
					return at + " is an empty text block"
				}
			case "tool_use":
				var input map[string]any
				if m.Role != "assistant" || b.ID == "" || b.Name == "" || json.Unmarshal(b.Input, &input) != nil || input == nil {
					return at + " is a tool_use outside an assistant message, or lacks id, name or an object input"
				}
				next[b.ID] = true
			case "tool_result":
				if m.Role != "user" || !results {
					return at + " is a tool_result outside the start of a user message"
				}
				if !open[b.ToolUseID] {
					return fmt.Sprintf("%s answers tool_use_id %q, which the message before did not use", at, b.ToolUseID)
				}
				if b.Content == nil {
					return at + " lacks content"
				}
				delete(open, b.ToolUseID)
			default:
				return fmt.Sprintf("%s has type %q", at, b.Type)
			}
		}
		if len(open) > 0 {
			return where + " leaves a tool_use of the message before unanswered"
		}
		open = next
	}
	if len(open) > 0 {
		return "the conversation ends with tool uses unanswered"
	}
	return ""
}
