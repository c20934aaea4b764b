// Package harness drives the harness CLIs of inference.transport: process
// (process.md): Claude Code and Codex CLI, each a Dialect — its exact argv
// and environment (PROC-6..8), the parser of its event stream (HEV-1,
// HEV-2) and the version it was tested against (PROC-10). It also runs a
// harness process (Start: its own process group, SIGKILL as its parent-death
// signal on Linux, the prompt on stdin, stdout line by line, the group
// killed once the leader exits, Interrupt's SIGTERM then SIGKILL after the
// grace, PROC-9 and PROC-16) and keeps harness-session.json (THR-1).
//
// The session (runtime/session) owns the task: it spawns runs, applies
// their events, answers the bridge's calls (runtime/harness/bridge) through
// the http loop's own dispatch, and resumes a run's session for
// continuations, keep_working and done_check. This package knows nothing
// of tasks, tools or the trace.
//
// # Example
//
//	d := harness.DialectOf(manifest.HarnessClaude)
//	p, err := harness.Start(harness.Spawn{
//		Argv:  d.Argv(harness.Run{Binary: bin, Dir: hdir, URL: bridgeURL}),
//		Env:   d.Env(allow, lookup, token),
//		Dir:   workdir,
//		Stdin: []byte(prompt),
//	})
//	parser := d.NewParser()
//	for line := range p.Lines() {
//		for _, ev := range parser.Line(line) { … }
//	}
//	exit := p.Wait()
//
// # Goroutines
//
// A Process owns two: the waiter, locked to its OS thread from the spawn to
// the reap (the parent-death signal follows the thread that forked), and
// the stdout reader, which closes Lines at EOF. Wait returns once both
// have ended; a caller must drain Lines.
package harness
