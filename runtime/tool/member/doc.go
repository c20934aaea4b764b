// Package member holds the two runtime-provided tools of a formation member
// that roster.yaml lets call another: call-member, which hands a callee one
// task over A2A and returns at once (tools.md §10, CALL-*), and
// end-without-answer, which ends a task another member sent without an
// answer (§11, EWA-*). Both exist exactly when the member has callees;
// runtime/toolset builds them with the rest of a session's tools.
//
// # Calls and the call set
//
// Every call is sent through a2a/client: one SendMessage per offer
// (messageId msg_<call_id>, returnImmediately, origin peer, the calling
// task's trust, the member token), each request bounded by Timing.Request.
// A call the member holds or turned away busy stays outstanding after the
// tool returns; the task's call set (a tool.Waiter registered on its
// tool.TaskState) tracks it. The loop waits on the set when the model ends
// a turn with a turn left, then asks it for the continuation message
// (Deliver, RND-2..8); at any other ending it calls Abandon (RND-9), which
// also sets the task's noAnswerBelow (RND-7).
//
// # Goroutines
//
// A busy call runs one goroutine that re-offers the task (1 s, doubling to
// 8 s, plus jitter; CALL-9) and, once the member takes it, polls GetTask
// every 500 ms (CALL-10); a held call runs one goroutine that polls. The call
// set owns them (spawn): each has a context of its own that Abandon cancels,
// and Abandon waits for all of them, so no goroutine outlives its task. Each
// ends its call exactly once (finish), which signals the task's state
// (tool.TaskState.Signal) and so wakes the loop's wait. Records written on
// them (member_call_busy, member_call_start) go through the task's state
// (tool.TaskState.Write) under the turn that made the call; member_call
// records are returned to the loop, which writes them.
//
// # Example
//
//	impls, err := member.Tools(member.Config{
//		Callees:   m.Callees, // roster order
//		Directory: m,         // *formation.Member
//		Allow:     manifest.Capabilities.Network.Allow,
//		Deadline:  time.Duration(manifest.Lifecycle.DelegationDeadlineSecs) * time.Second,
//	})
//	// impls[tool.NameCallMember], impls[tool.NameEndWithoutAnswer]
package member
