// Package trace writes a session's trace.jsonl (capsule.md §6).
//
// A Writer is the only place event ids (evt_…, UUIDv7: id order is file order)
// and parent ids are minted (capsule.md §9). Every line is one JSON object
// whose keys run event_type, event_id, parent_id, session_id, timestamp (Unix
// ms), then the record's payload fields in the order the caller gives them
// (TRACE-1). Parents follow TRACE-2: the Writer remembers the session node, each
// task's task_start and each task's latest agent inference (the turn), and picks
// the node a record type hangs from, falling back to the task, then the session.
//
// # Example
//
//	w, err := trace.Open(path, sesID, nil)
//	if err != nil { … }
//	w.Write("session_start", trace.F{"capsule_name", "hello"}, …)
//	w.Write("task_start", trace.F{"task_id", tid}, …)
//	w.Write("inference", trace.F{"turn", 0}, trace.F{"task_id", tid}, …)
//	w.Write("tool_call", trace.F{"turn", 0}, trace.F{"task_id", tid}, …) // parent: that inference
//	w.Close()
//
// A failed write is sticky: Err returns the E-RUN-007 diagnostic and Failed's
// channel closes, so the session can end (LOOP-19).
package trace
