package member

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/murmur-go/mur/runtime/tools"
)

// callTool is call-member (tools.md §10).
type callTool struct{ cfg *Config }

// Spec is CALL-1's schema (member: an enum of the callees in roster order)
// and description.
func (t *callTool) Spec() tools.Spec {
	schema := `{"type":"object","properties":{"member":{"type":"string","enum":` + tools.JSON(t.cfg.Callees) +
		`},"task":{"type":"string"}},"required":["member","task"]}`
	return tools.Spec{Name: tools.NameCallMember, Description: callDescription, InputSchema: json.RawMessage(schema), Kind: tools.KindRuntime}
}

// Call refuses (CALL-2, TOOL-11) or sends one call (CALL-3..8). It returns
// once the first offer is answered, at most Timing.Request after the
// address is known.
func (t *callTool) Call(ctx context.Context, cc *tools.CallContext, input json.RawMessage) tools.Result {
	if cc == nil || cc.Task == nil {
		return refuse(tools.NameCallMember, refusedNoTask)
	}
	ts := cc.Task
	if _, ending := ts.NoAnswer(); ending {
		return refuse(tools.NameCallMember, refusedEnding)
	}
	in := decodeObject(input)
	member, ok := stringField(in, "member")
	if !ok {
		return needs(tools.NameCallMember, "member")
	}
	if !slices.Contains(t.cfg.Callees, member) {
		return refuse(tools.NameCallMember, refusedNotCallee(member, t.cfg.Callees))
	}
	task, ok := stringField(in, "task")
	if !ok {
		return needs(tools.NameCallMember, "task")
	}
	s := setFor(ts, t.cfg)
	if s.isAbandoned() {
		return refuse(tools.NameCallMember, refusedNoTask)
	}
	if c, arrived := s.unanswered(member); c != nil {
		if arrived {
			return refuse(tools.NameCallMember, refusedAnswered(member, c.id))
		}
		return refuse(tools.NameCallMember, refusedNotAnswered(member, c.id))
	}
	return s.send(ctx, s.newCall(member, task), ts.Trust)
}

// refuse is TOOL-6's refusal: an unfenced tool error, nothing sent.
func refuse(tool, text string) tools.Result { return tools.Refusal(tool, text) }

// needs is TOOL-11's refusal for a missing or mistyped required field.
func needs(tool, field string) tools.Result {
	return tools.Refusal(tool, "'"+tool+"' needs "+field)
}

// decodeObject decodes a tool input object; anything else reads as empty.
func decodeObject(input json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(input, &m); err != nil || m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}

// stringField returns in[key] when it is a JSON string.
func stringField(in map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := in[key]
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
