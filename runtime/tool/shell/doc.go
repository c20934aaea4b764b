// Package shell holds tool 1 of tools.md §1 and its companion: one tool per
// binary in capabilities.shell.allow (SHELL-1..3, LOOP-11) and
// background-command (BG-1..4), with the session's table of commands that
// moved to the background (Works, SHELL-2).
//
// A shell call runs its command in its own process group (runtime/proc),
// reads both streams itself, keeps the last 16 KiB of each in the result and
// spills the rest to logs/shell-<n>.log. With lifecycle.shell_grace_secs
// set, a command still running after it moves to the background: its work
// id is the result's Detached, its output goes to logs/<work_id>.log, and
// Works reaps it on a goroutine of its own, calling OnExit (shell_completed,
// a completion task) unless background-command already returned its exit.
// Works.Close ends every command still running at session end (SES-8).
//
// # Example
//
//	works := &shell.Works{OnExit: onExit}
//	sh := &shell.Shell{Workdir: wd, Env: env, LogsDir: logs, Grace: &grace, Works: works,
//		Allowed: func(bin string) bool { return slices.Contains(allow, bin) }}
//	reg, _ := tool.Build(tool.Config{Grants: grants, Shell: sh,
//		Impl: map[string]tool.Tool{tool.NameBackgroundCommand: shell.Background(works)}})
//	defer works.Close()
package shell
