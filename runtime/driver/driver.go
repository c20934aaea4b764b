package driver

import (
	"context"
	"encoding/json"
	"strings"
)

// Driver serves inference calls for one driver block (DRV-1). One call is one
// turn (LOOP-6).
//
// Complete returns the model's reply, or an error the loop classifies with
// Cause and Reason: *CredentialError (ErrCredentialRejected), *ResponseError
// (ErrInvalidResponse), *TransportError, *RequestError, *ScriptError. When ctx
// ends first, the error satisfies errors.Is(err, ctx.Err()). Implementations
// are safe for concurrent use.
type Driver interface {
	// Kind is the driver block's kind: "scripted", "openai" or "anthropic".
	Kind() string
	// Complete sends one request and returns the reply.
	Complete(ctx context.Context, req *Request) (*Response, error)
}

// Encoder is implemented by drivers that can serialise a request exactly as
// Complete would send it, so the loop can estimate its size before sending
// (LOOP-18 admission, DRV-8).
type Encoder interface {
	Encode(req *Request) ([]byte, error)
}

// Request is one turn's input (DRV-1, LOOP-7).
type Request struct {
	Model     string     `json:"model"`      // the current choice's model
	System    string     `json:"system"`     // the system prompt; "" sends none
	Messages  []Message  `json:"messages"`   // the neutral conversation, oldest first
	Tools     []ToolSpec `json:"tools"`      // the inventory; empty sends none
	MaxTokens int        `json:"max_tokens"` // the per-turn output cap (inference.max_tokens)
	// OnRetry, when set, is told of every retried attempt before its wait
	// (DRV-4), synchronously on the calling goroutine. Drivers
	// that never retry (scripted) never call it.
	OnRetry func(Retry) `json:"-"`
	// TaskMessageID is the messageId of the A2A message that started the
	// task ("" when none): the scripted driver's message_id_prefix rule
	// matches it. No request body carries it.
	TaskMessageID string `json:"-"`
	// TaskFrom is the index in Messages of the current task's first message:
	// what lies before it is the context's earlier conversation (a resumed
	// record). The scripted driver reads the task and counts turns from it.
	// No request body carries it.
	TaskFrom int `json:"-"`
}

// ToolSpec describes one tool of the inventory.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"` // a JSON Schema object; empty = {"type":"object"}
}

// Role is a neutral message's author (LOOP-6).
type Role string

// The three roles of the neutral conversation. Tool results travel in RoleTool
// messages holding only BlockToolResult blocks, one message per turn with the
// turn's results in call order; drivers also accept one message per result.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one neutral conversation message. ID (msg_…) names it in the
// trace and is never sent to a provider.
type Message struct {
	ID     string  `json:"id,omitempty"`
	Role   Role    `json:"role"`
	Blocks []Block `json:"blocks"`
}

// BlockType tells which fields of a Block are meaningful.
type BlockType string

// The three block types of LOOP-6.
const (
	BlockText       BlockType = "text"        // Text
	BlockToolUse    BlockType = "tool_use"    // ID, Name, Input, InputError
	BlockToolResult BlockType = "tool_result" // ToolUseID, Content, IsError
)

// Block is one piece of a message.
//
// A tool_use block whose arguments could not be read (DRV-5: an OpenAI
// arguments string that is not a JSON object) has InputError set and Input
// holding the raw arguments as a JSON string; the loop runs nothing and answers
// InvalidToolArguments(block) as the tool's error result. Drivers send such a
// block back to the provider as it arrived.
type Block struct {
	Type       BlockType       `json:"type"`
	Text       string          `json:"text,omitempty"`
	ID         string          `json:"id,omitempty"`
	Name       string          `json:"name,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	InputError string          `json:"input_error,omitempty"`
	ToolUseID  string          `json:"tool_use_id,omitempty"`
	Content    string          `json:"content,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
}

// TextBlock returns a text block.
func TextBlock(text string) Block { return Block{Type: BlockText, Text: text} }

// ToolUseBlock returns a tool_use block; a nil input becomes {}.
func ToolUseBlock(id, name string, input json.RawMessage) Block {
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	return Block{Type: BlockToolUse, ID: id, Name: name, Input: input}
}

// ToolResultBlock returns a tool_result block answering the tool_use id.
func ToolResultBlock(toolUseID, content string, isError bool) Block {
	return Block{Type: BlockToolResult, ToolUseID: toolUseID, Content: content, IsError: isError}
}

// InvalidToolArguments is the tool error the loop answers for a tool_use block
// whose InputError is set (DRV-5): "invalid tool arguments: <error>".
func InvalidToolArguments(b Block) string { return "invalid tool arguments: " + b.InputError }

// Text returns the message's text blocks joined by "\n".
func (m Message) Text() string { return joinText(m.Blocks) }

func joinText(blocks []Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Normalised stop reasons (DRV-1). Any other provider value passes verbatim;
// "" means the provider gave none.
const (
	StopEndTurn   = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
)

// Response is one turn's reply (DRV-1).
type Response struct {
	Blocks      []Block // text and tool_use blocks, in the provider's order
	StopReason  string  // normalised: StopEndTurn, StopToolUse, StopMaxTokens, else verbatim
	Usage       Usage   // provider counts; nil fields were not reported
	RawBody     []byte  // the reply body as received (TRACE-5 response_sha)
	RequestBody []byte  // the request body as sent (TRACE-5, DRV-8)
}

// Text returns the reply's text blocks joined by "\n".
func (r *Response) Text() string { return joinText(r.Blocks) }

// ToolUses returns the reply's tool_use blocks in order.
func (r *Response) ToolUses() []Block {
	var out []Block
	for _, b := range r.Blocks {
		if b.Type == BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

// Usage holds provider-reported token counts; a nil field was not reported and
// is never written as 0 (DRV-8, TRACE inference *_actual fields).
type Usage struct {
	Input      *int64 `json:"input,omitempty"`
	Output     *int64 `json:"output,omitempty"`
	Cached     *int64 `json:"cached,omitempty"`
	CacheWrite *int64 `json:"cache_write,omitempty"`
}

// Int64 returns a pointer to n, for building Usage values.
func Int64(n int64) *int64 { return &n }
