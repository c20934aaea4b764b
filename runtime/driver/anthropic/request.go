package anthropic

import (
	"bytes"
	"encoding/json"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/driver"
)

// defaultMaxTokens stands in for a request without a cap: the Messages API
// requires one (inference.max_tokens's default).
const defaultMaxTokens = 8192

// messagesRequest is the Messages request body (DRV-6). Its fields are in
// the order the API builds its prompt cache from — tools, then system, then
// messages — so the body's bytes before the first message are the cached
// prefix, the same in every session of a capsule.
type messagesRequest struct {
	Model     string        `json:"model"`
	MaxTokens int           `json:"max_tokens"`
	Tools     []tool        `json:"tools,omitempty"`
	System    []systemBlock `json:"system,omitempty"`
	Messages  []message     `json:"messages"`
}

// systemBlock is the system prompt as a text block, which can carry a cache
// breakpoint.
type systemBlock struct {
	Type         string        `json:"type"` // "text"
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

// cacheControl marks a prompt-cache breakpoint: the API caches the prompt up
// to and including the marked block (type "ephemeral", its default 5-minute
// lifetime).
type cacheControl struct {
	Type string `json:"type"`
}

// breakpoint is the cache_control the driver marks: on the last tool and on
// the system prompt, the two parts that do not change between a capsule's
// sessions.
var breakpoint = &cacheControl{Type: "ephemeral"}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   *bool           `json:"is_error,omitempty"`
}

type tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// Encode returns the request body Complete sends for req (DRV-6, DRV-8).
func (d *Driver) Encode(req *driver.Request) ([]byte, error) {
	body := messagesRequest{Model: req.Model, MaxTokens: req.MaxTokens, Messages: messages(req.Messages)}
	if body.MaxTokens <= 0 {
		body.MaxTokens = defaultMaxTokens
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = emptySchema
		}
		body.Tools = append(body.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if n := len(body.Tools); n > 0 {
		body.Tools[n-1].CacheControl = breakpoint
	}
	if req.System != "" {
		body.System = []systemBlock{{Type: "text", Text: req.System, CacheControl: breakpoint}}
	}
	return a2a.Marshal(body)
}

// messages translates the neutral conversation: tool messages become user
// messages holding tool_result blocks, empty text blocks are dropped (the API
// refuses them), same-role neighbours merge into one message, and a user
// message's tool_result blocks come before its other blocks (DRV-6).
func messages(msgs []driver.Message) []message {
	var out []message
	for _, m := range msgs {
		role := "user"
		if m.Role == driver.RoleAssistant {
			role = "assistant"
		}
		var content []block
		for _, b := range m.Blocks {
			if wb, ok := wireBlock(b); ok {
				content = append(content, wb)
			}
		}
		if len(content) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, content...)
			continue
		}
		out = append(out, message{Role: role, Content: content})
	}
	for i := range out {
		if out[i].Role == "user" {
			out[i].Content = resultsFirst(out[i].Content)
		}
	}
	return out
}

func wireBlock(b driver.Block) (block, bool) {
	switch b.Type {
	case driver.BlockText:
		return block{Type: "text", Text: b.Text}, b.Text != ""
	case driver.BlockToolUse:
		return block{Type: "tool_use", ID: b.ID, Name: b.Name, Input: objectOrEmpty(b)}, true
	case driver.BlockToolResult:
		content, isError := b.Content, b.IsError
		return block{Type: "tool_result", ToolUseID: b.ToolUseID, Content: &content, IsError: &isError}, true
	}
	return block{}, false
}

// objectOrEmpty is a tool_use block's input, or {} when it is not an object
// (a call whose arguments another driver could not read).
func objectOrEmpty(b driver.Block) json.RawMessage {
	if b.InputError == "" {
		var v map[string]any
		if json.Unmarshal(b.Input, &v) == nil && v != nil {
			return b.Input
		}
	}
	return json.RawMessage(`{}`)
}

func resultsFirst(blocks []block) []block {
	out := make([]block, 0, len(blocks))
	for _, b := range blocks {
		if b.Type == "tool_result" {
			out = append(out, b)
		}
	}
	for _, b := range blocks {
		if b.Type != "tool_result" {
			out = append(out, b)
		}
	}
	return out
}
