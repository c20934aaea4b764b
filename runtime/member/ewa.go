package member

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/murmur-go/mur/runtime/tools"
)

// ewaTool is end-without-answer (tools.md §11).
type ewaTool struct{ cfg *Config }

// Spec is EWA-1's schema and description.
func (t *ewaTool) Spec() tools.Spec {
	const schema = `{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"]}`
	return tools.Spec{Name: tools.NameEndWithoutAnswer, Description: ewaDescription, InputSchema: json.RawMessage(schema), Kind: tools.KindRuntime}
}

// Call refuses in EWA-3's order or accepts (EWA-2): the loop then ends the
// attempt no_answer once the turn's calls finish (EWA-4).
func (t *ewaTool) Call(_ context.Context, cc *tools.CallContext, input json.RawMessage) tools.Result {
	const name = tools.NameEndWithoutAnswer
	switch {
	case len(t.cfg.Callees) == 0:
		return refuse(name, ewaRefusedNotMember)
	case cc == nil || cc.Task == nil:
		return refuse(name, ewaRefusedNoTask)
	case cc.Task.CallerMember == "":
		return refuse(name, ewaRefusedNoSender)
	}
	ts := cc.Task
	if s := findSet(ts); s != nil {
		if c, _ := s.unanswered(""); c != nil {
			return refuse(name, ewaRefusedCallOut(c.id, c.member))
		}
	}
	reason, ok := stringField(decodeObject(input), "reason")
	if !ok || strings.TrimSpace(reason) == "" {
		return refuse(name, ewaRefusedNoReason)
	}
	if !ts.EndWithoutAnswer(reason) {
		return refuse(name, ewaRefusedAlready)
	}
	caller := ts.CallerMember
	return tools.Result{Status: tools.Passed, Summary: ewaSummary,
		Data:  tools.JSON(map[string]string{"caller": caller, "status": statusEnding}),
		Notes: []string{ewaNote(caller)}}
}
