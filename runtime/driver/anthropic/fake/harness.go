package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/murmur-go/mur/runtime/driver/internal/fakeserver"
)

// HarnessServer is the fake in harness mode (process.md PTEST-6): it
// answers what Claude Code sends — POST /v1/messages?beta=true with
// Authorization: Bearer <OAuth token>, unknown body fields, streaming —
// with a Messages API event stream built from the same Replies (text
// deltas, tool_use blocks with input_json_delta). Replies' Header may carry
// anthropic-ratelimit-unified-* headers (RateLimitHeaders).
type HarnessServer = fakeserver.Server[HarnessRequest, Reply]

// HarnessCapture is one request a HarnessServer captured.
type HarnessCapture = fakeserver.Request[HarnessRequest]

// HarnessRequest is a harness's request body, read leniently: the fields a
// test asserts on; any other field is accepted.
type HarnessRequest struct {
	Model     string           `json:"model"`
	MaxTokens int              `json:"max_tokens"`
	Stream    bool             `json:"stream"`
	System    json.RawMessage  `json:"system"`
	Messages  []HarnessMessage `json:"messages"`
	Tools     []Tool           `json:"tools"`
}

// HarnessMessage is one request message; Content is a string or blocks.
type HarnessMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Text is every text the message holds, tool_result contents included,
// joined by "\n".
func (m HarnessMessage) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(m.Content, &blocks)
	var out []string
	for _, b := range blocks {
		switch {
		case b.Type == "text":
			out = append(out, b.Text)
		case b.Type == "tool_result":
			out = append(out, HarnessMessage{Content: b.Content}.Text())
		}
	}
	return strings.Join(out, "\n")
}

// ToolNames lists the request's tools by name.
func (r HarnessRequest) ToolNames() []string {
	out := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		out[i] = t.Name
	}
	return out
}

var harnessWire = fakeserver.Wire[HarnessRequest, Reply]{
	Check:        checkHarness,
	Decode:       decodeHarness,
	Model:        func(r HarnessRequest) string { return r.Model },
	KeyHeader:    "Authorization",
	KeyPrefix:    "Bearer ",
	Unauthorized: struct{ Type, Message string }{"authentication_error", "OAuth token has expired."},
	NoReplyType:  "api_error",
	WriteError:   writeError,
	WriteReply:   Reply.stream,
}

// NewHarness starts a harness-mode server on a loopback port; cfg.APIKey is
// the bearer token requests must carry ("" = none). Close it when done.
func NewHarness(cfg Config) *HarnessServer { return fakeserver.New(harnessWire, cfg) }

func checkHarness(r *http.Request) string {
	if p := fakeserver.CheckPost(r, "/v1/messages"); p != "" {
		return p
	}
	if v := r.Header.Get("anthropic-version"); v != "2023-06-01" {
		return "anthropic-version " + v + ", want 2023-06-01"
	}
	return ""
}

func decodeHarness(body []byte) (HarnessRequest, string) {
	var req HarnessRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return req, "body: " + err.Error()
	}
	switch {
	case req.Model == "":
		return req, "model is empty"
	case len(req.Messages) == 0:
		return req, "messages is empty"
	case !req.Stream:
		return req, "stream is not true"
	}
	return req, ""
}

// stream writes r as a Messages API event stream (or, with Body set, the
// verbatim error).
func (r Reply) stream(w http.ResponseWriter, n int, model string) {
	if r.Body != "" || r.Status != 0 && r.Status != http.StatusOK {
		fakeserver.Send(w, r.Status, r.Header, r.Body, func() []byte { return nil })
		return
	}
	in, out := int64(0), int64(0)
	if u := r.Usage; u != nil {
		in, out = u.InputTokens, u.OutputTokens
	}
	usage := map[string]any{"input_tokens": in, "output_tokens": 1}
	if u := r.Usage; u != nil && u.CacheReadInputTokens != nil {
		usage["cache_read_input_tokens"] = *u.CacheReadInputTokens
	}
	if u := r.Usage; u != nil && u.CacheCreationInputTokens != nil {
		usage["cache_creation_input_tokens"] = *u.CacheCreationInputTokens
	}
	evs := []fakeserver.Event{{Name: "message_start", Data: map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", n), "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}}}}
	block := func(i int, start map[string]any, delta map[string]any) {
		evs = append(evs,
			fakeserver.Event{Name: "content_block_start", Data: map[string]any{"type": "content_block_start", "index": i, "content_block": start}},
			fakeserver.Event{Name: "content_block_delta", Data: map[string]any{"type": "content_block_delta", "index": i, "delta": delta}},
			fakeserver.Event{Name: "content_block_stop", Data: map[string]any{"type": "content_block_stop", "index": i}})
	}
	i := 0
	if r.Text != "" {
		block(i, map[string]any{"type": "text", "text": ""}, map[string]any{"type": "text_delta", "text": r.Text})
		i++
	}
	for j, u := range r.ToolUses {
		id := u.ID
		if id == "" {
			id = fmt.Sprintf("toolu_fake_%d_%d", n, j)
		}
		input := u.Input
		if input == "" {
			input = "{}"
		}
		block(i, map[string]any{"type": "tool_use", "id": id, "name": u.Name, "input": map[string]any{}},
			map[string]any{"type": "input_json_delta", "partial_json": input})
		i++
	}
	stop := r.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(r.ToolUses) > 0 {
			stop = "tool_use"
		}
	}
	evs = append(evs,
		fakeserver.Event{Name: "message_delta", Data: map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": out}}},
		fakeserver.Event{Name: "message_stop", Data: map[string]any{"type": "message_stop"}})
	fakeserver.SSE(w, r.Header, evs)
}

// Window is one rate-limit window a harness-mode reply reports.
type Window struct {
	Status      string  // allowed | allowed_warning | rejected
	Utilization float64 // 0–1
	Reset       int64   // Unix seconds
}

// RateLimitHeaders are the anthropic-ratelimit-unified-* headers of a
// subscription's five-hour and seven-day windows (PTEST-6); Claude Code
// reports them as rate_limit_event.
func RateLimitHeaders(fiveHour, sevenDay Window) map[string]string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return map[string]string{
		"anthropic-ratelimit-unified-status":               fiveHour.Status,
		"anthropic-ratelimit-unified-reset":                strconv.FormatInt(fiveHour.Reset, 10),
		"anthropic-ratelimit-unified-representative-claim": "five_hour",
		"anthropic-ratelimit-unified-5h-status":            fiveHour.Status,
		"anthropic-ratelimit-unified-5h-utilization":       f(fiveHour.Utilization),
		"anthropic-ratelimit-unified-5h-reset":             strconv.FormatInt(fiveHour.Reset, 10),
		"anthropic-ratelimit-unified-7d-status":            sevenDay.Status,
		"anthropic-ratelimit-unified-7d-utilization":       f(sevenDay.Utilization),
		"anthropic-ratelimit-unified-7d-reset":             strconv.FormatInt(sevenDay.Reset, 10),
	}
}
