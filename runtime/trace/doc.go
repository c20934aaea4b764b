// Package trace writes and reads a session's trace.jsonl (capsule.md §6).
//
// Every record type is one Go struct of this package (SessionStart,
// ToolCall, MemberCall, PlanEnd, …), its fields in the spec's order by
// declaration order; Kinds lists them all with the node each hangs from
// (TRACE-2) and whether the file is fsynced after it (TRACE-3). Record is
// sealed: the Writer writes these types and nothing else, and readers —
// `mur trace show` (runtime/traceview), the test helpers, any other
// program — decode lines back into the same types.
//
// A Writer is the only place event ids (evt_…, UUIDv7: id order is file
// order) and parent ids are minted (capsule.md §9). Every line is one JSON
// object whose keys run event_type, event_id, parent_id, session_id,
// timestamp (Unix ms), then the record's payload fields (TRACE-1). Parents
// follow TRACE-2: the Writer remembers the session node, each task's
// task_start and each task's latest agent inference (the turn), and picks
// the node a record type hangs from, falling back to the task, then the
// session.
//
// # Writing
//
//	w, err := trace.Open(path, sesID, nil)
//	if err != nil { … }
//	w.Write(trace.SessionStart{CapsuleName: "hello", …})
//	w.Write(trace.TaskStart{TaskID: tid, …})
//	w.Write(trace.Inference{Turn: 0, TaskID: tid, …})
//	w.Write(trace.ToolCall{Turn: 0, TaskID: tid, …}) // parent: that inference
//	w.Close()
//
// A failed write is sticky: Err returns the E-RUN-007 diagnostic and Failed's
// channel closes, so the session can end (LOOP-19).
//
// # Reading
//
//	for l, err := range trace.Lines(f) {
//		if err != nil { … } // *MalformedError, or the read error
//		r, known, err := l.Record()
//		if err != nil { … } // a field of the wrong JSON type
//		if c, ok := r.(trace.ToolCall); ok && known {
//			fmt.Println(l.EventID, c.ToolName, c.DurationMS)
//		}
//	}
//
// Record returns known == false for a type this build does not write;
// readers skip those. As decodes a line as one expected type; Check
// verifies a line is exactly what the Writer would write for its record.
package trace
