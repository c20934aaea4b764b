// Package tools holds the session's tools (tools.md): the Registry that
// evaluates tools.md §1 once for staging, the inventory, tools_declared and
// dispatch (STAGE-*); the one fence writer (FENCE-*); TOOL-10's cut; the
// deadline notice line (NOTICE-1); shell binary tools and background commands
// (SHELL-*, BG-*); session-status (STATUS-*); switch-driver (SWD-*); native
// tool and skill artifacts (LOOP-10).
//
// A Tool answers one call and returns a Result: its status, summary, data
// (fenced by the loop under tool:<name> unless refused), notes, and the
// tool-specific trace records the loop writes after the call's tool_call.
// Tools never write the trace themselves, except through Works.OnExit, which
// the session sets to write shell_completed.
//
// # Example
//
//	sh := &tools.Shell{Workdir: wd, Env: env, LogsDir: logs}
//	reg, warns := tools.Build(tools.Config{
//		Grants: tools.Grants{ShellAllow: []string{"bash"}},
//		Shell:  sh,
//		Impl:   map[string]tools.Tool{tools.NameSessionStatus: tools.SessionStatus(snap)},
//	})
//	_ = reg.Stage(runtimeDir)
//	t, refusal := reg.Lookup("bash")
//	res := t.Call(ctx, &tools.CallContext{TaskID: id, Turn: 0}, input)
//	content, _ := res.Content("bash")
package tools
