package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/internal/wirejson"
)

// messagesReply is the part of a Messages reply the driver reads.
type messagesReply struct {
	Type    string `json:"type"`
	Content *[]struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	StopReason *string `json:"stop_reason"`
	Usage      *struct {
		InputTokens              *int64 `json:"input_tokens"`
		OutputTokens             *int64 `json:"output_tokens"`
		CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
		CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	} `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeReply(raw []byte) (*driver.Response, error) {
	var r messagesReply
	if err := wirejson.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	if r.Type == "error" && r.Error != nil {
		return nil, fmt.Errorf("the reply is an error: %s: %s", r.Error.Type, r.Error.Message)
	}
	if r.Content == nil {
		return nil, errors.New("the reply holds no content")
	}
	resp := &driver.Response{}
	for i, c := range *r.Content {
		switch c.Type {
		case "text":
			if c.Text != "" {
				resp.Blocks = append(resp.Blocks, driver.TextBlock(c.Text))
			}
		case "tool_use":
			if c.ID == "" || c.Name == "" {
				return nil, fmt.Errorf("content[%d]: a tool_use block lacks its id or name", i)
			}
			resp.Blocks = append(resp.Blocks, toolUse(c.ID, c.Name, c.Input))
		}
		// Other block types (thinking, server tools) carry nothing the loop uses.
	}
	if r.StopReason != nil {
		resp.StopReason = *r.StopReason // DRV-6: passes through
	}
	if u := r.Usage; u != nil {
		resp.Usage = driver.Usage{Input: u.InputTokens, Output: u.OutputTokens,
			Cached: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens}
	}
	return resp, nil
}

// toolUse keeps an object input; anything else marks the call so the loop
// answers `invalid tool arguments: <error>` (as DRV-5 does for openai).
func toolUse(id, name string, input json.RawMessage) driver.Block {
	input = bytes.TrimSpace(input)
	if len(input) == 0 || bytes.Equal(input, []byte("null")) {
		return driver.ToolUseBlock(id, name, nil)
	}
	var v map[string]any
	if input[0] == '{' && json.Unmarshal(input, &v) == nil {
		var b bytes.Buffer
		if json.Compact(&b, input) == nil {
			return driver.ToolUseBlock(id, name, b.Bytes())
		}
	}
	quoted, _ := a2a.Marshal(string(input)) // a string always marshals
	return driver.Block{Type: driver.BlockToolUse, ID: id, Name: name, Input: quoted,
		InputError: "input is not a JSON object"}
}
