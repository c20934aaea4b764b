package member

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/murmur-go/mur/runtime/tool"
)

// callTool is call-member (tools.md §10).
type callTool struct{ cfg *Config }

// Spec is CALL-1's schema (member: an enum of the callees in roster order)
// and description.
func (t *callTool) Spec() tool.Spec {
	schema := `{"type":"object","properties":{"member":{"type":"string","enum":` + tool.JSON(t.cfg.Callees) +
		`},"task":{"type":"string"}},"required":["member","task"]}`
	return tool.Spec{Name: tool.NameCallMember, Description: callDescription, InputSchema: json.RawMessage(schema), Kind: tool.KindRuntime}
}

// Call refuses (CALL-2, TOOL-11) or sends one call (CALL-3..8). It returns
// once the first offer is answered, at most Timing.Request after the
// address is known.
func (t *callTool) Call(ctx context.Context, cc *tool.CallContext, input json.RawMessage) tool.Result {
	if cc == nil || cc.Task == nil {
		return tool.Refusal(tool.NameCallMember, refusedNoTask)
	}
	ts := cc.Task
	if _, ending := ts.NoAnswer(); ending {
		return tool.Refusal(tool.NameCallMember, refusedEnding)
	}
	in := tool.DecodeObject(input)
	member, ok := tool.StringField(in, "member")
	if !ok {
		return tool.Needs(tool.NameCallMember, "member")
	}
	if !slices.Contains(t.cfg.Callees, member) {
		return tool.Refusal(tool.NameCallMember, refusedNotCallee(member, t.cfg.Callees))
	}
	task, ok := tool.StringField(in, "task")
	if !ok {
		return tool.Needs(tool.NameCallMember, "task")
	}
	s := setFor(ts, t.cfg)
	if s.isAbandoned() {
		return tool.Refusal(tool.NameCallMember, refusedNoTask)
	}
	if c, arrived := s.unanswered(member); c != nil {
		if arrived {
			return tool.Refusal(tool.NameCallMember, refusedAnswered(member, c.id))
		}
		return tool.Refusal(tool.NameCallMember, refusedNotAnswered(member, c.id))
	}
	return s.send(ctx, s.newCall(member, task), ts.Trust)
}
