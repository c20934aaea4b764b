package member

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/murmur-go/mur/runtime/tool"
)

// ewaTool is end-without-answer (tools.md §11).
type ewaTool struct{ cfg *Config }

// Spec is EWA-1's schema and description.
func (t *ewaTool) Spec() tool.Spec {
	const schema = `{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"]}`
	return tool.Spec{Name: tool.NameEndWithoutAnswer, Description: ewaDescription, InputSchema: json.RawMessage(schema), Kind: tool.KindRuntime}
}

// Call refuses in EWA-3's order or accepts (EWA-2): the loop then ends the
// attempt no_answer once the turn's calls finish (EWA-4).
func (t *ewaTool) Call(_ context.Context, cc *tool.CallContext, input json.RawMessage) tool.Result {
	const name = tool.NameEndWithoutAnswer
	switch {
	case len(t.cfg.Callees) == 0:
		return tool.Refusal(name, ewaRefusedNotMember)
	case cc == nil || cc.Task == nil:
		return tool.Refusal(name, ewaRefusedNoTask)
	case cc.Task.CallerMember == "":
		return tool.Refusal(name, ewaRefusedNoSender)
	}
	ts := cc.Task
	if s := findSet(ts); s != nil {
		if c, _ := s.unanswered(""); c != nil {
			return tool.Refusal(name, ewaRefusedCallOut(c.id, c.member))
		}
	}
	reason, ok := tool.StringField(tool.DecodeObject(input), "reason")
	if !ok || strings.TrimSpace(reason) == "" {
		return tool.Refusal(name, ewaRefusedNoReason)
	}
	if !ts.EndWithoutAnswer(reason) {
		return tool.Refusal(name, ewaRefusedAlready)
	}
	caller := ts.CallerMember
	return tool.Result{Status: tool.Passed, Summary: ewaSummary,
		Data:  tool.JSON(map[string]string{"caller": caller, "status": statusEnding}),
		Notes: []string{ewaNote(caller)}}
}
