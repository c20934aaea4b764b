package trace

// CallDenied is call_denied (murmur's observability schema; tools.md
// TOOL-7): a policy hook refused a tool call or shell command before it
// ran. No tool_call or shell record accompanies it.
type CallDenied struct {
	Turn     int    `json:"turn"`
	TaskID   string `json:"task_id"`
	Event    string `json:"event"` // on-tool-call | on-shell
	HookName string `json:"hook_name"`
	// Target is the resolved executable for a shell command, the tool name
	// otherwise.
	Target string `json:"target"`
	// Reason is the hook's own, or the runtime's when the hook gave none it
	// could use (an exit, a deadline, unreadable output, another arm).
	Reason string `json:"reason"`
}

// HookDispatchError is hook_dispatch_error: a hook call failed in a way
// the session survives (an observer, a reopen or seed hook, an async
// queue). Arm is the unsupported answer, or "error", "timeout" or
// "queue-overflow"; event is "drain" for the session-end drain. Reason
// says what happened.
type HookDispatchError struct {
	HookName string `json:"hook_name"`
	Event    string `json:"event"`
	Arm      string `json:"arm"`
	Reason   string `json:"reason"`
}

// ContextSeed is context_seed: an on-task-start hook's seed-context answer,
// placed at the head of the task's first messages or rejected (reason:
// "over_budget", "empty", "unreadable"; "" when accepted).
type ContextSeed struct {
	TaskID   string `json:"task_id"`
	HookName string `json:"hook_name"`
	Messages int    `json:"messages"`
	Bytes    int    `json:"bytes"`
	Accepted bool   `json:"accepted"`
	Reason   string `json:"reason"`
}

func (CallDenied) EventType() string        { return "call_denied" }
func (HookDispatchError) EventType() string { return "hook_dispatch_error" }
func (ContextSeed) EventType() string       { return "context_seed" }

func (r CallDenied) task() string      { return r.TaskID }
func (HookDispatchError) task() string { return "" }
func (r ContextSeed) task() string     { return r.TaskID }
