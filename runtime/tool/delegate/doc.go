// Package delegate is delegate-task (tools.md §13, DLG-1..9): a capsule
// hands one task to a sub-capsule it spawns, and the outcome reaches the
// model in the same continuation round as member answers (RND, DLG-8).
//
// The process side — the referee, the launch, the lifeline, the completion
// — is runtime/spawn's Hub, which the session hands in (Config.Hub); this
// package is the tool and the per-task delegation set, a tool.Waiter.
//
// # Goroutines
//
// Each started delegation has one goroutine, owned by its task's set: it
// waits for the child's outcome, the delegation deadline (DLG-5) or the
// task's end (Abandon), ending the child at the latter two, then signals
// the task's state. Abandon stops and waits for every one of them.
package delegate
