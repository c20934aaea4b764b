package tool

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
	// CallID is the model's id for the call, "" when it gave none.
	CallID string
	// Task is the running task's state (task.go); nil outside a task.
	Task *TaskState
	// SetPhase tells the loop which LOOP-16 phase a cancel during this call
	// lands in ("background_wait" while background-command waits). May be nil.
	SetPhase func(phase string)
	// Gate is the on-shell decision point (TOOL-7): a shell tool calls it
	// after the manifest's own checks and immediately before it starts the
	// command, with what is about to run. A non-nil Denied is the refusal
	// to return; the gate has recorded it. May be nil: nothing gates.
	Gate func(ctx context.Context, cmd ShellCommand) *Result
	// GateTool is the on-tool-call decision point for a call a tool makes
	// itself (a plan's tool step); the loop's own calls are decided before
	// the tool is called. May be nil: nothing gates.
	GateTool func(ctx context.Context, name string, input json.RawMessage) *Result
}

// ShellCommand is what a shell call is about to run, as the on-shell
// decision point is handed it: the resolved executable, the exact
// argument list, the -c script body when there is one, and the command as
// the model wrote it (display only: a policy decides on argv and script).
type ShellCommand struct {
	Binary  string   // the tool (allow-list) name
	Path    string   // the resolved absolute executable
	Argv    []string // untruncated
	Script  *string  // the body after -c, nil when none
	Command string
}

// GatedTool asks cc's on-tool-call gate about a call of name with input;
// nil when it may run.
func (cc *CallContext) GatedTool(ctx context.Context, name string, input json.RawMessage) *Result {
	if cc == nil || cc.GateTool == nil {
		return nil
	}
	return cc.GateTool(ctx, name, input)
}

// Gated asks cc's gate about cmd; nil when it may run.
func (cc *CallContext) Gated(ctx context.Context, cmd ShellCommand) *Result {
	if cc == nil || cc.Gate == nil {
		return nil
	}
	return cc.Gate(ctx, cmd)
}

// Phase tells the loop the call is in phase p now (see SetPhase); it does
// nothing when cc or SetPhase is nil.
func (cc *CallContext) Phase(p string) {
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

// EmptySchema is the input schema of a tool that takes no input
// (session-status, a skill without one).
const EmptySchema = `{"type":"object","properties":{}}`
