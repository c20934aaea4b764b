// Package agent is the one agent loop: the per-task rule that asks for a
// step, ends the task on a cancel, an exhausted turn budget or a step that
// ended the attempt, and after an answer asks the task's policy (the
// continuation, keep_working, done_check, a hook's reopen) whether it goes
// on (capsule.md LOOP-7..LOOP-20). The loop never asks which transport it
// drives: the HTTP drivers and the harness CLIs (transport: process) both
// sit behind Transport. It yields Events; the owner of the task fans the
// Ended one out to its Sinks (trace, result.txt, the A2A outcome, telemetry,
// stats, stdout), each one small type.
//
// # Example
//
//	var end agent.Ending
//	for ev := range agent.Run(ctx, policy, transport) {
//		if ev.Kind == agent.Ended {
//			end = ev.Ending
//		}
//	}
//	agent.Fan(end, sinks...)
package agent
