package harness

import (
	"encoding/json"
	"strings"
)

// codexLine is one `codex exec --json` line, the fields HEV-2 reads.
type codexLine struct {
	Type     string      `json:"type"`
	ThreadID string      `json:"thread_id"`
	Item     *codexItem  `json:"item"`
	Message  string      `json:"message"`
	Error    *codexError `json:"error"`
	Usage    *codexUsage `json:"usage"`
}

type codexItem struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Server  string `json:"server"`
	Tool    string `json:"tool"`
	Text    string `json:"text"`
	Message string `json:"message"`
}

type codexError struct {
	Message string `json:"message"`
}

type codexUsage struct {
	Input      *int64 `json:"input_tokens"`
	Output     *int64 `json:"output_tokens"`
	Cached     *int64 `json:"cached_input_tokens"`
	CacheWrite *int64 `json:"cache_write_input_tokens"`
}

// codexParser reads Codex's exec --json (HEV-2). Codex reports no response
// boundary: each mur tool-call item is a turn of its own, and the answer is
// one more (HEV-3).
type codexParser struct {
	open      string // the open tool-call item's id
	answerID  string // the last agent_message before turn.completed
	answer    string
	lastError string // the last `error` line's message, for HEV-7
}

// NewCodexParser returns a Parser of Codex's exec --json (HEV-2).
func NewCodexParser() Parser { return &codexParser{} }

// Line reads one line; a non-JSON line or another type is activity.
func (p *codexParser) Line(b []byte) []Event {
	var l codexLine
	if json.Unmarshal(b, &l) != nil {
		return nil
	}
	switch l.Type {
	case "thread.started":
		if l.ThreadID != "" {
			return []Event{SessionReported{ID: l.ThreadID, Auth: AuthUnknown}}
		}
	case "item.started":
		if it := l.Item; it != nil && it.Type == "mcp_tool_call" && it.Server == "mur" {
			evs := closeTurn(&p.open, nil)
			p.open = it.ID
			return append(evs, TurnOpened{ID: it.ID}, ToolCalled{TurnID: it.ID, CallID: it.ID, Name: it.Tool})
		}
	case "item.completed":
		it := l.Item
		if it == nil {
			return nil
		}
		switch it.Type {
		case "mcp_tool_call":
			if it.ID == p.open {
				return closeTurn(&p.open, nil)
			}
		case "agent_message":
			p.answerID, p.answer = it.ID, it.Text
		case "error":
			return []Event{Notice{Text: it.Message}}
		}
	case "error":
		p.lastError = l.Message
	case "turn.completed":
		evs := closeTurn(&p.open, nil)
		if p.answerID != "" {
			evs = append(evs, TurnOpened{ID: p.answerID}, TurnClosed{ID: p.answerID})
		}
		return append(evs, Completed{Answer: p.answer, Usage: codexUsageOf(l.Usage)})
	case "turn.failed":
		msg := p.lastError
		if l.Error != nil && l.Error.Message != "" {
			msg = l.Error.Message
		}
		return append(closeTurn(&p.open, nil), Failed{Kind: CodexKind(msg), Message: msg, Usage: codexUsageOf(l.Usage)})
	}
	return nil
}

// End closes the open turn.
func (p *codexParser) End() []Event { return closeTurn(&p.open, nil) }

func codexUsageOf(u *codexUsage) Usage {
	if u == nil {
		return Usage{}
	}
	return Usage{Input: u.Input, Output: u.Output, Cached: u.Cached, CacheWrite: u.CacheWrite}
}

// CodexKind is HEV-7's mapping of a codex failure message: 401,
// 403 or Unauthorized → auth; 429, "usage limit" or "rate limit" (ASCII
// case-insensitive) → quota; else harness-error.
func CodexKind(msg string) string {
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(msg, "401"), strings.Contains(msg, "403"), strings.Contains(msg, "Unauthorized"):
		return FailAuth
	case strings.Contains(msg, "429"), strings.Contains(lower, "usage limit"), strings.Contains(lower, "rate limit"):
		return FailQuota
	}
	return FailHarness
}
