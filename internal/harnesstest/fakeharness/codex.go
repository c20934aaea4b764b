package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codex speaks Codex CLI 0.169.0's exec --json (process.md HEV-2).
// Its MCP server is the stdio command PROC-7's -c mcp_servers.mur.command
// and .args name (mur's proxy).
type codex struct {
	home, id, resume string
	command          string
	args             []string
	br               *bridge
	n                int
}

func newCodex(home string, args []string) *codex {
	c := &codex{home: home}
	for i, a := range args {
		if i == 0 || args[i-1] != "-c" {
			continue
		}
		if v, ok := strings.CutPrefix(a, "mcp_servers.mur.command="); ok {
			_ = json.Unmarshal([]byte(v), &c.command) // a TOML basic string
		}
		if v, ok := strings.CutPrefix(a, "mcp_servers.mur.args="); ok {
			_ = json.Unmarshal([]byte(v), &c.args) // a TOML array of basic strings
		}
	}
	if len(args) > 1 && args[1] == "resume" && len(args) >= 3 {
		c.resume = args[len(args)-2] // … <id> -
	}
	return c
}

func (c *codex) session() string { return filepath.Join(c.home, "sessions", c.id) }

func (c *codex) start() (int, bool) {
	if c.resume != "" {
		if _, err := os.Stat(filepath.Join(c.home, "sessions", c.resume)); err != nil {
			fmt.Fprintf(os.Stderr, "Error: thread/resume: thread/resume failed: no rollout found for thread id %s (code -32600)\n", c.resume)
			return 1, true
		}
		c.id = c.resume
	} else {
		c.id = newID()
		_ = os.WriteFile(c.session(), []byte(`{}`), 0o600)
	}
	if c.br = connectStdio(c.command, c.args); c.br == nil {
		fmt.Fprintln(os.Stderr, "Error: required MCP servers failed to initialize: mur: handshake failed")
		return 1, true
	}
	emit(map[string]any{"type": "thread.started", "thread_id": c.id})
	emit(map[string]any{"type": "turn.started"})
	return 0, false
}

func (c *codex) item() string {
	c.n++
	return fmt.Sprintf("item_%d", c.n)
}

func (c *codex) tool(t ToolStep) {
	id := c.item()
	args := t.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	it := map[string]any{"id": id, "type": "mcp_tool_call", "server": "mur", "tool": t.Name, "arguments": args, "status": "in_progress"}
	if !t.NoEvent {
		emit(map[string]any{"type": "item.started", "item": it})
	}
	text, isErr := c.br.call(t.Name, args, mcp.Meta{"callId": "call_" + id})
	it["status"], it["result"] = "completed", map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
	if isErr {
		it["status"] = "failed"
	}
	emit(map[string]any{"type": "item.completed", "item": it})
}

func (c *codex) quota(json.RawMessage) {} // exec --json reports no window (HEV-6)

func (c *codex) answer(text string, u *Usage) int {
	emit(map[string]any{"type": "item.completed", "item": map[string]any{"id": c.item(), "type": "agent_message", "text": text}})
	var total Usage
	if b, err := os.ReadFile(c.session()); err == nil {
		_ = json.Unmarshal(b, &total)
	}
	if u != nil {
		total.Input += u.Input
		total.Output += u.Output
		total.Cached += u.Cached
		total.CacheWrite += u.CacheWrite
	}
	b, _ := json.Marshal(total)
	_ = os.WriteFile(c.session(), b, 0o600)
	emit(map[string]any{"type": "turn.completed", "usage": map[string]int64{"input_tokens": total.Input, "cached_input_tokens": total.Cached,
		"cache_write_input_tokens": total.CacheWrite, "output_tokens": total.Output, "reasoning_output_tokens": 0}})
	return 0
}

func (c *codex) fail(f Fail) int {
	emit(map[string]any{"type": "error", "message": f.Message})
	emit(map[string]any{"type": "turn.failed", "error": map[string]any{"message": f.Message}})
	return 1
}

func (c *codex) forget() { _ = os.Remove(c.session()) }
