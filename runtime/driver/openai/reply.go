package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/internal/wirejson"
)

// chatReply is the part of a Chat Completions reply the driver reads.
type chatReply struct {
	Choices []struct {
		Message *struct {
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        *int64 `json:"prompt_tokens"`
		CompletionTokens    *int64 `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens *int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

// finishReasons normalises finish_reason (DRV-5); others pass verbatim.
var finishReasons = map[string]string{
	"stop":       driver.StopEndTurn,
	"tool_calls": driver.StopToolUse,
	"length":     driver.StopMaxTokens,
}

func decodeReply(raw []byte) (*driver.Response, error) {
	var r chatReply
	if err := wirejson.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	if len(r.Choices) == 0 {
		return nil, errors.New("the reply holds no choices")
	}
	c := r.Choices[0]
	if c.Message == nil {
		return nil, errors.New("choices[0] holds no message")
	}
	resp := &driver.Response{}
	content, err := contentText(c.Message.Content)
	if err != nil {
		return nil, err
	}
	if content != "" {
		resp.Blocks = append(resp.Blocks, driver.TextBlock(content))
	}
	for i, tc := range c.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		id := tc.ID
		if id == "" { // some local servers send none; the round trip needs one
			id = fmt.Sprintf("call_%d", i)
		}
		resp.Blocks = append(resp.Blocks, toolUse(id, tc.Function.Name, tc.Function.Arguments))
	}
	if c.FinishReason != nil {
		resp.StopReason = *c.FinishReason
		if n, ok := finishReasons[*c.FinishReason]; ok {
			resp.StopReason = n
		}
	}
	if u := r.Usage; u != nil {
		resp.Usage.Input = u.PromptTokens
		resp.Usage.Output = u.CompletionTokens
		if u.PromptTokensDetails != nil {
			resp.Usage.Cached = u.PromptTokensDetails.CachedTokens
		}
	}
	return resp, nil
}

// contentText reads message.content: a string, null, or a list of text parts.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("choices[0].message.content is neither a string nor a list of parts")
	}
	var b bytes.Buffer
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// toolUse reads a tool call's arguments: a JSON string holding an object (the
// wire format), or an object itself (Ollama). An empty string is {}. Anything
// else marks the block for the loop's `invalid tool arguments: <error>`
// (DRV-5), keeping the raw text so the call round-trips unchanged.
func toolUse(id, name string, args json.RawMessage) driver.Block {
	args = bytes.TrimSpace(args)
	var text string
	switch {
	case len(args) == 0 || bytes.Equal(args, []byte("null")):
		return driver.ToolUseBlock(id, name, nil)
	case args[0] == '{':
		return object(id, name, args, string(args))
	case json.Unmarshal(args, &text) == nil:
		if len(bytes.TrimSpace([]byte(text))) == 0 {
			return driver.ToolUseBlock(id, name, nil)
		}
		return object(id, name, []byte(text), text)
	default:
		return invalid(id, name, string(args), errors.New("arguments are neither a JSON string nor an object"))
	}
}

func object(id, name string, data []byte, raw string) driver.Block {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return invalid(id, name, raw, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return invalid(id, name, raw, errors.New("arguments are not a JSON object"))
	}
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return invalid(id, name, raw, err)
	}
	return driver.ToolUseBlock(id, name, b.Bytes())
}

func invalid(id, name, raw string, err error) driver.Block {
	quoted, _ := a2a.Marshal(raw) // a string always marshals
	return driver.Block{Type: driver.BlockToolUse, ID: id, Name: name, Input: quoted, InputError: err.Error()}
}
