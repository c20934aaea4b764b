package tools

import (
	"context"
	"encoding/json"
)

// Kind says what answers a tool (STAGE-8 dispatch order).
type Kind int

// The kinds, in dispatch precedence order (STAGE-8).
const (
	KindRuntime Kind = iota + 1 // a staged runtime-provided tool (tools 2–12)
	KindNative                  // a native tool artifact
	KindShell                   // a shell binary (tool 1)
	KindSkill                   // a skill artifact
)

// Spec is how a tool is described to the model and staged (STAGE-2).
type Spec struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	Kind        Kind
}

// CallContext is what the loop tells a tool about the call it makes.
type CallContext struct {
	TaskID string
	Turn   int
	// Task is the running task's state (round.go); nil outside a task.
	Task *TaskState
	// SetPhase tells the loop which LOOP-16 phase a cancel during this call
	// lands in ("background_wait" while background-command waits). May be nil.
	SetPhase func(phase string)
}

func (cc *CallContext) phase(p string) {
	if cc != nil && cc.SetPhase != nil {
		cc.SetPhase(p)
	}
}

// Tool is one inventory entry the loop can call. Call never panics on bad
// input; a cancelled ctx makes it return promptly (LOOP-16).
type Tool interface {
	Spec() Spec
	Call(ctx context.Context, cc *CallContext, input json.RawMessage) Result
}

// decodeObject decodes a tool input object into a map of raw values; a
// non-object input reads as an empty object.
func decodeObject(input json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(input, &m); err != nil || m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}

// rawString returns a raw JSON value as a string: the string itself, or the
// JSON text of any other value. ok is false for a non-string.
func rawString(v json.RawMessage) (s string, ok bool) {
	if err := json.Unmarshal(v, &s); err == nil {
		return s, true
	}
	return string(v), false
}

// needs is TOOL-11's refusal: "'<tool>' needs <field>".
func needs(tool, field string) Result {
	return Refusal(tool, "'"+tool+"' needs "+field)
}
