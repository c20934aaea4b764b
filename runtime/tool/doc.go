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
//
// A tool answers one call and returns a Result: its status, summary, data
// (fenced by the loop under tool:<name> unless refused), notes, and the
// tool-specific trace records the loop writes after the call's tool_call.
// A tool that arrives adds its package, its row in grants.go (tools.md §1)
// and its wiring in the session (Config.Impl) or cmd/mur; nothing else here
// changes.
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
