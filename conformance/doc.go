// Package conformance is a black-box suite that judges any A2A v1.0 JSON-RPC
// door by its URL (door.md GO-7). It is written from the A2A v1.0
// specification and door.md, not from mur's door, so another vendor's door is
// judged fairly:
//
//   - checks of A2A rules run against every door;
//   - checks of door.md's own decisions ([OURS] texts, exact metadata, 204 for
//     notifications, 413, /metrics …) run only when the card declares the
//     murmur door extension, since only such a door promises them;
//   - checks of the murmur extensions (methods list, session/stop,
//     stream/watch, peer consent, completions) run only when the card
//     declares them, else SKIP;
//   - auth checks run only with a token (Config.Token) on a door whose card
//     requires one; a door that requires a token when none was given gets its
//     JSON-RPC checks skipped, not failed. A scoped credential
//     (Config.ScopedToken) turns on auth.scoped, a formation member token
//     (Config.MemberToken) the formation.* checks of a murmur door;
//   - where a standard says SHOULD (RFC 6750's error attribute, its status
//     codes), a door that does otherwise gets WARN, not FAIL; where it leaves
//     a choice (A2A §3.3.1's idempotent cancel, streams that stay open while a
//     task waits for input, RFC 8259 §6's interoperable integers), the suite
//     accepts each choice from a door that is not a murmur door.
//
// The suite sends task text but never assumes what the agent answers: a
// blocking SendMessage must end terminal or interrupted, a canceled live task
// must read CANCELED, and so on. Checks that need a task the door still holds
// use Config.SlowTaskText when it is set (text the door's agent keeps working
// on until canceled) and otherwise try with Config.TaskText, skipping when the
// task ended first. A door that accepts a single task per session (mur's
// task_acceptance single) rejects the later ones busy, and the checks that
// needed them skip. A door whose tasks ask for input (A2A's interrupted
// TASK_STATE_INPUT_REQUIRED; mur's murmur-tool-request-input) is judged on
// it: send.continue replies to a waiting task, and the interrupted paths of
// send.blocking, cancel.live and subscribe.live run. Between checks the suite
// cancels every task it started that has not ended, so a door that serves one
// task at a time is never held back by a task an earlier check left waiting.
//
// The suite speaks HTTP itself and imports only a2a's wire types, never
// a2a/client: it judges the doors mur's client talks to, so it cannot share
// that client's assumptions.
//
// Checks run one at a time, in a fixed order, with stable ids (IDs). The first
// check fetches the card; when it fails, every other check is skipped. The
// last check, murmur.session-stop, cancels every live task of the door's
// session (door.md METH-STOP-1).
//
// # Example
//
// ExampleRun judges an in-process mur door. From a command:
//
//	results := conformance.Run(ctx, conformance.Config{URL: "http://127.0.0.1:41873", Token: tok})
//	conformance.Write(os.Stdout, results) // PASS card.fetch  The Agent Card is served … / 41 passed, 0 failed
//
// In a Go test, RunT runs each check as a subtest:
//
//	conformance.RunT(t, conformance.Config{URL: url, SlowTaskText: "hold"})
package conformance
