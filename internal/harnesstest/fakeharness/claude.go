package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// claude speaks Claude Code 2.1.328's stream-json (process.md HEV-1).
type claude struct {
	home, id, resume, config string
	br                       *bridge
	n                        int
}

func newClaude(home string, args []string) *claude {
	c := &claude{home: home}
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--resume":
			c.resume = args[i+1]
		case "--mcp-config":
			c.config = args[i+1]
		}
	}
	return c
}

func (c *claude) start() (int, bool) {
	if c.resume != "" {
		if _, err := os.Stat(filepath.Join(c.home, "sessions", c.resume)); err != nil {
			msg := "No conversation found with session ID: " + c.resume
			fmt.Fprintln(os.Stderr, msg)
			emit(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true,
				"errors": []string{msg}, "api_error_status": nil})
			return 1, true
		}
		c.id = c.resume
	} else {
		c.id = newID()
		_ = os.WriteFile(filepath.Join(c.home, "sessions", c.id), []byte("{}"), 0o600)
	}
	status := "failed"
	var cfg struct {
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if b, err := os.ReadFile(c.config); err == nil && json.Unmarshal(b, &cfg) == nil {
		if s, ok := cfg.MCPServers["mur"]; ok {
			token := s.Headers["Authorization"]
			if len(token) > 7 {
				token = token[7:] // "Bearer "
			}
			if c.br = connect(s.URL, token); c.br != nil {
				status = "connected"
			}
		}
	}
	src := "none"
	if os.Getenv("FAKE_HARNESS_AUTH") == "api-key" {
		src = "ANTHROPIC_API_KEY"
	}
	emit(map[string]any{"type": "system", "subtype": "init", "session_id": c.id, "apiKeySource": src,
		"mcp_servers": []map[string]string{{"name": "mur", "status": status}}})
	return 0, false
}

func (c *claude) tool(t ToolStep) {
	c.n++
	mid, tid := fmt.Sprintf("msg_fake_%d", c.n), fmt.Sprintf("toolu_fake_%d", c.n)
	args := t.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	content := []any{}
	if t.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	content = append(content, map[string]any{"type": "tool_use", "id": tid, "name": "mcp__mur__" + t.Name, "input": args})
	if !t.NoEvent {
		emit(map[string]any{"type": "assistant", "message": map[string]any{"id": mid, "content": content}, "session_id": c.id})
	}
	text, isErr := c.br.call(t.Name, args, mcp.Meta{"claudecode/toolUseId": tid})
	emit(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": tid, "is_error": isErr, "content": []any{map[string]any{"type": "text", "text": text}}}}},
		"session_id": c.id})
}

func (c *claude) quota(info json.RawMessage) {
	emit(map[string]any{"type": "rate_limit_event", "rate_limit_info": info, "session_id": c.id})
}

func (c *claude) answer(text string, u *Usage) int {
	c.n++
	emit(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_fake_%d", c.n),
		"content": []any{map[string]any{"type": "text", "text": text}}}, "session_id": c.id})
	res := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": text, "session_id": c.id}
	if u != nil {
		res["usage"] = map[string]int64{"input_tokens": u.Input, "output_tokens": u.Output,
			"cache_read_input_tokens": u.Cached, "cache_creation_input_tokens": u.CacheWrite}
	}
	emit(res)
	return 0
}

func (c *claude) fail(f Fail) int {
	res := map[string]any{"type": "result", "subtype": "success", "is_error": true, "result": f.Message, "session_id": c.id,
		"api_error_status": nil}
	if f.Subtype != "" {
		res["subtype"] = f.Subtype
	}
	if f.Status != 0 {
		res["api_error_status"] = f.Status
	}
	emit(res)
	return 1
}

func (c *claude) forget() { _ = os.Remove(filepath.Join(c.home, "sessions", c.id)) }
