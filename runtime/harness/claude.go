package harness

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/murmur-go/mur/runtime/tool"
)

// claudeToolPrefix is how Claude Code shows the model a bridged tool
// (BRG-3): mcp__<server>__<name>.
const claudeToolPrefix = "mcp__mur__"

// claudeLine is one stream-json line, the fields HEV-1 reads.
type claudeLine struct {
	Type          string          `json:"type"`
	Subtype       string          `json:"subtype"`
	SessionID     string          `json:"session_id"`
	APIKeySource  *string         `json:"apiKeySource"`
	MCPServers    []claudeMCP     `json:"mcp_servers"`
	Message       *claudeMessage  `json:"message"`
	RateLimitInfo json.RawMessage `json:"rate_limit_info"`
	// system compact_boundary
	CompactMetadata *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"pre_tokens"`
	} `json:"compact_metadata"`
	// result
	IsError        bool            `json:"is_error"`
	Result         json.RawMessage `json:"result"`
	Errors         []string        `json:"errors"`
	APIErrorStatus *int            `json:"api_error_status"`
	TerminalReason string          `json:"terminal_reason"`
	Usage          *claudeUsage    `json:"usage"`
}

type claudeMCP struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

type claudeMessage struct {
	ID      string        `json:"id"`
	Content []claudeBlock `json:"content"`
}

type claudeBlock struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
}

type claudeUsage struct {
	Input      *int64 `json:"input_tokens"`
	Output     *int64 `json:"output_tokens"`
	CacheRead  *int64 `json:"cache_read_input_tokens"`
	CacheWrite *int64 `json:"cache_creation_input_tokens"`
}

// claudeParser reads Claude Code's stream-json (HEV-1).
type claudeParser struct {
	turn string // the open turn's message.id, "" when none is open
	seen bool   // the session id was reported
}

// NewClaudeParser returns a Parser of Claude Code's stream-json (HEV-1).
func NewClaudeParser() Parser { return &claudeParser{} }

// Line reads one line: a non-JSON line, or one of an unknown type, is
// activity only (HEV-1).
func (p *claudeParser) Line(b []byte) []Event {
	var l claudeLine
	if json.Unmarshal(b, &l) != nil {
		return closeTurn(&p.turn, nil)
	}
	var evs []Event
	if l.Type != "assistant" || l.Message == nil {
		evs = closeTurn(&p.turn, evs)
	}
	switch l.Type {
	case "system":
		if l.Subtype == "compact_boundary" && l.CompactMetadata != nil {
			return append(evs, Compacted{Trigger: l.CompactMetadata.Trigger, PreTokens: l.CompactMetadata.PreTokens})
		}
		if l.Subtype != "init" {
			return evs
		}
		if !p.seen && l.SessionID != "" {
			p.seen = true
			auth := AuthAPIKey
			if l.APIKeySource != nil && *l.APIKeySource == "none" {
				auth = AuthSubscription
			}
			evs = append(evs, SessionReported{ID: l.SessionID, Auth: auth})
		}
		for _, s := range l.MCPServers {
			if s.Name == "mur" && s.Status != "connected" {
				evs = append(evs, BridgeFailed{})
			}
		}
	case "assistant":
		if l.Message == nil {
			return evs
		}
		if id := l.Message.ID; id != p.turn {
			evs = closeTurn(&p.turn, evs)
			p.turn = id
			evs = append(evs, TurnOpened{ID: id})
		}
		for _, bl := range l.Message.Content {
			if bl.Type == "tool_use" {
				evs = append(evs, ToolCalled{TurnID: p.turn, CallID: bl.ID, Name: strings.TrimPrefix(bl.Name, claudeToolPrefix)})
			}
		}
	case "rate_limit_event":
		if w := claudeQuota(l.RateLimitInfo); len(w) > 0 {
			evs = append(evs, QuotaReported{Windows: w})
		}
	case "result":
		var u Usage
		if l.Usage != nil {
			u = Usage{Input: l.Usage.Input, Output: l.Usage.Output, Cached: l.Usage.CacheRead, CacheWrite: l.Usage.CacheWrite}
		}
		text, isText := resultText(l.Result)
		if !l.IsError {
			return append(evs, Completed{Answer: text, Usage: u})
		}
		msg := text
		if !isText || msg == "" {
			msg = strings.Join(l.Errors, "; ")
		}
		return append(evs, Failed{Kind: claudeKind(l), Message: msg, Usage: u})
	}
	return evs
}

// End closes the open turn.
func (p *claudeParser) End() []Event { return closeTurn(&p.turn, nil) }

// resultText is result.result as a string; ok false when it is not one.
func resultText(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// claudeKind is HEV-7's mapping of a claude result with is_error true.
func claudeKind(l claudeLine) string {
	if s := l.APIErrorStatus; s != nil {
		switch *s {
		case 401, 403:
			return FailAuth
		case 429:
			return FailQuota
		}
	}
	switch {
	case l.Subtype == "error_max_turns":
		return FailMaxTurns
	case strings.Contains(l.TerminalReason, "interrupt") || strings.Contains(l.TerminalReason, "abort"):
		return FailCanceled
	}
	return FailHarness
}

// claudeWindow is one rate-limit window of rate_limit_info (HEV-6).
type claudeWindow struct {
	Status        string   `json:"status"`
	ResetsAt      *int64   `json:"resetsAt"`
	Utilization   *float64 `json:"utilization"`
	RateLimitType string   `json:"rateLimitType"`
}

// claudeQuota maps rate_limit_info to session-status quota entries (HEV-6):
// each unifiedWindows key is one entry; without them, rateLimitType names
// the one entry its fields make.
func claudeQuota(raw json.RawMessage) []tool.QuotaWindow {
	var info struct {
		claudeWindow
		UnifiedWindows map[string]claudeWindow `json:"unifiedWindows"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &info) != nil {
		return nil
	}
	if len(info.UnifiedWindows) == 0 {
		if info.RateLimitType == "" {
			return nil
		}
		return []tool.QuotaWindow{quotaWindow(info.RateLimitType, info.claudeWindow)}
	}
	// Keys in the order the line holds them (first report order, HEV-6).
	keys := objectKeys(raw, "unifiedWindows")
	out := make([]tool.QuotaWindow, 0, len(keys))
	for _, k := range keys {
		out = append(out, quotaWindow(k, info.UnifiedWindows[k]))
	}
	return out
}

// quotaWindow is one HEV-6 entry: the name with _ as -, utilization,
// resetsAt as RFC 3339 UTC, the window's minutes when known, the state.
func quotaWindow(key string, w claudeWindow) tool.QuotaWindow {
	q := tool.QuotaWindow{Name: strings.ReplaceAll(key, "_", "-"), Used: w.Utilization}
	if w.ResetsAt != nil {
		q.ResetsAt = time.Unix(*w.ResetsAt, 0).UTC().Format(time.RFC3339)
	}
	switch {
	case key == "five_hour":
		q.WindowMinutes = ptrInt(300)
	case strings.HasPrefix(key, "seven_day"):
		q.WindowMinutes = ptrInt(10080)
	}
	switch w.Status {
	case "allowed":
		q.State = tool.QuotaOK
	case "allowed_warning":
		q.State = tool.QuotaWarning
	case "rejected":
		q.State = tool.QuotaExhausted
	}
	return q
}

func ptrInt(n int) *int { return &n }

// objectKeys returns the keys of the object at raw[field], in order.
func objectKeys(raw json.RawMessage, field string) []string {
	var outer map[string]json.RawMessage
	if json.Unmarshal(raw, &outer) != nil {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(outer[field])))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}
