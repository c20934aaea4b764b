// Package session runs one `mur run` session (capsule.md §3–§4, §6;
// tools.md): MAN-4's launch checks, the two session directories, the trace,
// staging, the task pump and the agent loop, the lifecycle options
// (keep_working, done_check, continuation), result.txt, the deadline, the
// formation lifeline and the ending.
//
// # Example
//
//	l, err := session.Prepare(opts) // MAN-4 steps 0–9; creates nothing
//	if err != nil { … }             // a *diag.Diagnostic: print it, exit 1
//	ln, err := net.Listen("tcp", "127.0.0.1:0") // step 10 (E-RUN-010)
//	s, err := session.Start(l, session.StartConfig{URL: url, Home: home, Results: os.Stdout})
//	// serve s.Registry() at the door, write the running record, then:
//	res := s.Run() // until the session ends; s.Stop(session.BySignal) from a signal
//	// res.ExitStatus is session_end.exit_status (LOOP-20); res.Err is E-RUN-007
//
// # Goroutines
//
// Run's goroutine is the task pump and runs each task in turn (one task at a
// time, LOOP-4); a task's context ends when its cancel is accepted (a watcher
// goroutine per task, waited for when the task ends). The session owns up to
// three watchers — the deadline timer (SES-7), the formation lifeline (LIFE-3)
// and the trace's failure (E-RUN-007) — started by Run and waited for before
// it returns. Background commands are reaped by shell.Works, which the ending
// closes (SES-8). Stop and the Registry are safe to call from any goroutine.
package session
