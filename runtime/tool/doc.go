// Package tool is the core every tool builds on (tools.md): the Tool
// interface, its Spec and Result, the CallContext of a call, the per-task
// TaskState and its Waiter seam, the Registry that evaluates tools.md §1 once
// for staging, the inventory, tools_declared and dispatch (STAGE-*), the one
// fence writer (FENCE-*), TOOL-10's 64 KiB cut, the deadline notice line
// (NOTICE-1) and the names of the runtime-provided tools, which
// runtime/manifest declares once.
//
// The core names no concrete tool. Each tool, or family of tools, is a
// package below it that imports the core and never a sibling (internal/arch
// holds the rule):
//
//	tool/shell         shell binaries (SHELL-*), background-command (BG-*), the work table
//	tool/plan          submit-plan (PLAN-*)
//	tool/artifact      native tools and skills (LOOP-10), pull-artifact (PULL-*), remove-artifact (RMA-*)
//	tool/status        session-status (STATUS-*)
//	tool/switchdriver  switch-driver (SWD-*)
//	tool/member        call-member (CALL-*), end-without-answer (EWA-*)
//	tool/peerfile      share-file, fetch-peer-file and the peer plane's redeem (PFILE-*)
//	tool/input         murmur-tool-request-input, the built-in artifact (input.md INP-*)
//
// A tool answers one call and returns a Result: its status, summary, data
// (fenced by the loop under tool:<name> unless refused), notes, and the
// tool-specific trace records the loop writes after the call's tool_call.
// A tool that arrives adds its package, its row in grants.go (tools.md §1)
// and its wiring in the session (Config.Impl) or cmd/mur; nothing else here
// changes.
//
// # Work that answers after the turn: the continuation seam
//
// A call can hand work out that answers after the turn that made it has
// ended (call-member, delegate-task). All such
// work meets the loop at the task's TaskState, through one signal; the flow,
// and the file that owns each step:
//
//  1. The call returns. runtime/session/dispatch.go calls Tool.Call with the
//     task's context and a CallContext whose Task is the TaskState. The tool
//     (tool/member/call.go) registers its Waiter once per task
//     (TaskState.AddWaiter, task.go; tool/member/set.go setFor), starts the
//     goroutines that carry the work on (set.go spawn: each gets a context of
//     its own that ends at Abandon, not with the call) and returns at once.
//     The loop writes the result's records through TaskState.Write
//     (task.go), the one path every tool record takes, and goes on with the
//     next inference call.
//  2. The turn ends. When the model answers without tool calls
//     (runtime/session/loop.go), afterAnswer (runtime/session/after.go) runs
//     the continuation first, if a turn is left (LOOP-12, LOOP-15).
//  3. The wait. continuation asks TaskState.Pending, then TaskState.Wait
//     (wait.go): it takes Changed, reads every waiter's Outstanding, shows
//     RND-1's text through the task's status at the start and whenever the
//     count drops, and blocks on Changed or the task's context (a cancel:
//     phase member_call, RND-3). A waiter's goroutine that ends a piece of
//     work (tool/member/set.go finish) calls TaskState.Signal, which closes
//     Changed; records those goroutines write go through TaskState.Write
//     under the turn that made the call (TurnNode).
//  4. The delivery. Once nothing is out, TaskState.Deliver (wait.go) takes
//     every waiter's Delivery in registration order into one Round: the
//     message text (cut at 64 KiB), the ids by task_continued field, the
//     records, the status. continuation writes the records, sets the
//     status, appends the one user message, writes task_continued and the
//     loop takes its next turn (RND-2).
//  5. Any other ending (last turn, failure, cancel, session end): the task's
//     finish (runtime/session/taskrun.go) calls TaskState.Abandon (wait.go);
//     each waiter stops its goroutines, waits for them and accounts for its
//     work (RND-9, tool/member/set.go Abandon), and its records are written
//     before task_end.
//
// request-input is not such work: its call waits in the turn (input.md
// INP-4), on the task's door, and a timeout ends the attempt through
// TaskState.Fail.
//
// Contexts are passed, never stored: the task's context flows from
// runtime/session/taskrun.go down the loop into each call; a goroutine that
// outlives its call holds only the context spawn gave it.
//
// # Example
//
//	sh := &shell.Shell{Workdir: wd, Env: env, LogsDir: logs}
//	reg, warns := tool.Build(tool.Config{
//		Grants: tool.Grants{ShellAllow: []string{"bash"}},
//		Shell:  sh,
//		Impl:   map[string]tool.Tool{tool.NameSessionStatus: status.New(snap)},
//	})
//	_ = reg.Stage(runtimeDir)
//	t, refusal := reg.Lookup("bash")
//	res := t.Call(ctx, &tool.CallContext{TaskID: id, Turn: 0}, input)
//	content, _ := res.Content("bash")
package tool
