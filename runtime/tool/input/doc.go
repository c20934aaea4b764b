// Package input is murmur-tool-request-input (input.md): the one artifact
// the runtime answers itself (INP-1). A call puts one question to the
// operator: the task's "prompt" artifact holds it and the task waits in
// TASK_STATE_INPUT_REQUIRED (INP-4) until a SendMessage naming the task
// replies (INP-5), lifecycle.input_timeout_secs passes (INP-7) or the task is
// canceled (INP-8).
//
// Unlike call-member it is not a tool.Waiter: the spec keeps the turn open
// while it waits ("the tool call waits"), so the call itself blocks on the
// task's Door, and its context carries the task's cancel. Its records
// (input_request, then input_reply or input_timeout) go through the task's
// state as they happen, before the call's tool_call (INP-10). A timeout
// marks the task's attempt failed (tool.TaskState.Fail), which the loop ends
// with task_failed {cause input_timeout} and the status text input-timeout.
//
// # Example
//
//	t, _ := input.New(input.Config{Ref: a.Ref, Version: a.Version, Timeout: 30 * time.Second,
//		Door: func(cc *tool.CallContext) input.Door { return doorOf(cc.TaskID) }})
//	res := t.Call(ctx, cc, json.RawMessage(`{"prompt":"Which branch should I release?"}`))
package input
