// Package spawn is delegation's process side (tools.md DLG): the parent's
// Hub, which referees a delegation (DLG-2), launches the child as a real
// `mur run` of the installed capsule (DLG-3), holds the write end of its
// spawner lifeline (DLG-6), receives its completion (DLG-7) and stops and
// reaps it; and the child's Link, which reads MURMUR_SPAWNER and the
// lifeline at launch (E-RUN-020), reports the lifeline's end and posts the
// child's completion back at session end.
//
// delegate-task (runtime/tool/delegate) and submit-plan's capsule steps
// (runtime/tool/plan) both delegate through a Hub; neither imports the
// other. The session builds the Hub and hands it to both, and the door
// reaches it as its door.Completions.
//
// # Example
//
//	hub, _ := spawn.New(spawn.Config{Mur: exe, Parent: m, SessionID: id, URL: url, Workdir: wd, Stores: st})
//	defer hub.Close()
//	child, err := hub.Delegate(ctx, spawn.Request{Capsule: "worker", Version: "0.1.0", Task: "count the files"})
//	var ref *spawn.Refusal
//	switch {
//	case errors.As(err, &ref): // DLG-2: ref.Sentence, nothing was spawned
//	case err != nil: // DLG-4 failed: the child was stopped and reaped
//	default:
//		<-child.Done()
//		o := child.Outcome() // ok, error, crashed, terminated or unknown
//	}
//
// # Goroutines and processes
//
// Each child is one process group led by its `mur run`. The Hub owns, per
// child, the goroutine that waits for the process and the one that reads
// its stdout; both end when the process ends. Close terminates every child
// still running (SIGTERM, then SIGKILL to its group 5 s later) and waits
// for all of them, so no process a Hub started outlives it, unless the
// parent itself is killed — then each child's lifeline closes and the
// child ends itself (DLG-6).
package spawn
