// Package plan holds submit-plan (tools.md §14, PLAN-1..8): a plan of steps
// run against the session's own tools in one call. The plan is validated
// before any step runs (validate.go, PLAN-5), then scheduled (run.go):
// steps whose dependencies settled are dispatched, shell steps concurrently
// (shell.go), tool steps one at a time through the session's registry
// (PLAN-6); $<id>.output and $<id>.status references and if conditions are
// read at dispatch (expr.go, PLAN-3). The call returns one report, steps in
// settling order (PLAN-7), and writes plan_start, plan_step_start,
// plan_step and plan_end as it runs, through the task's trace (PLAN-8).
//
// # Example
//
//	submit := plan.New(plan.Config{
//		Registry: func() *tool.Registry { return reg }, // built after the tools
//		Shell:    &plan.Shell{Workdir: wd, Env: env, Allowed: allowed},
//		PlansDir: filepath.Join(runtimeDir, "plans"),
//	})
package plan
