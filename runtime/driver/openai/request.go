package openai

import (
	"bytes"
	"encoding/json"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/driver"
)

// chatRequest is the Chat Completions request body (DRV-5). The tools come
// before the messages, so that the body's bytes up to the first task message
// (model, tools, system prompt) are the same in every session of a capsule:
// the prefix the provider's automatic prompt caching matches.
type chatRequest struct {
	Model               string        `json:"model"`
	Tools               []chatTool    `json:"tools,omitempty"`
	Messages            []chatMessage `json:"messages"`
	MaxTokens           *int          `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int          `json:"max_completion_tokens,omitempty"`
}

// chatMessage is one message; Content is null only on an assistant message
// that only calls tools.
type chatMessage struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function functionSpec `json:"function"`
}

type functionSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema stands in for a tool without an input schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// Encode returns the request body Complete sends for req (DRV-5, DRV-8).
func (d *Driver) Encode(req *driver.Request) ([]byte, error) {
	body := chatRequest{Model: req.Model, Messages: messages(req)}
	for _, t := range req.Tools {
		params := t.InputSchema
		if len(bytes.TrimSpace(params)) == 0 {
			params = emptySchema
		}
		body.Tools = append(body.Tools, chatTool{Type: "function",
			Function: functionSpec{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if req.MaxTokens > 0 {
		n := req.MaxTokens
		if d.field == driver.MaxCompletionTokensField {
			body.MaxCompletionTokens = &n
		} else {
			body.MaxTokens = &n
		}
	}
	return a2a.Marshal(body)
}

func text(s string) *string { return &s }

// messages translates the neutral conversation: the system prompt first,
// tool_result blocks as role "tool" messages (each right after the assistant
// message that called), text blocks of a tool message as a user message
// after them.
func messages(req *driver.Request) []chatMessage {
	var out []chatMessage
	if req.System != "" {
		out = append(out, chatMessage{Role: "system", Content: text(req.System)})
	}
	for _, m := range req.Messages {
		var texts []string
		var results []chatMessage
		var calls []toolCall
		for _, b := range m.Blocks {
			switch b.Type {
			case driver.BlockText:
				texts = append(texts, b.Text)
			case driver.BlockToolResult:
				results = append(results, chatMessage{Role: "tool", Content: text(b.Content), ToolCallID: b.ToolUseID})
			case driver.BlockToolUse:
				calls = append(calls, toolCall{ID: b.ID, Type: "function",
					Function: functionCall{Name: b.Name, Arguments: arguments(b)}})
			}
		}
		joined := driver.Message{Blocks: textBlocks(texts)}.Text()
		if m.Role == driver.RoleAssistant {
			msg := chatMessage{Role: "assistant", ToolCalls: calls}
			if len(texts) > 0 {
				msg.Content = text(joined)
			}
			out = append(out, msg)
			continue
		}
		out = append(out, results...)
		if len(texts) > 0 || len(results) == 0 {
			out = append(out, chatMessage{Role: "user", Content: text(joined)})
		}
	}
	return out
}

func textBlocks(texts []string) []driver.Block {
	out := make([]driver.Block, len(texts))
	for i, t := range texts {
		out[i] = driver.TextBlock(t)
	}
	return out
}

// arguments is a tool_use block's input as the JSON string Chat Completions
// carries; a block whose arguments could not be read goes back as it came.
func arguments(b driver.Block) string {
	if b.InputError != "" {
		var raw string
		if json.Unmarshal(b.Input, &raw) == nil {
			return raw
		}
	}
	if len(bytes.TrimSpace(b.Input)) == 0 {
		return "{}"
	}
	return string(b.Input)
}
