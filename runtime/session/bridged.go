package session

import (
	"context"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/harness/bridge"
)

// bridged answers one tools/call of the harness (process.md BRG-5): the
// http loop's own dispatch (dispatch.go) — the same records, fences,
// notes, deadline notice and artifact frame — under the turn the bridge
// attributed it to (BRG-6), unless BRG-7 refuses it: outside a run, in the
// turn PROC-14 stopped, or in a turn after end-without-answer. The bridge
// calls it one call at a time, on its own goroutine.
func (s *Session) bridged(ctx context.Context, c bridge.Call) bridge.Answer {
	var r *hrun
	if s.hx != nil {
		r = s.hx.currentRun()
	}
	refusal := c.Refusal
	if r == nil && refusal == "" {
		refusal = bridge.RefusalNoRun
	}
	u := driver.Block{Type: driver.BlockToolUse, ID: c.ToolCallID, Name: c.Name, Input: c.Arguments}
	if r == nil { // no task to write under: answered, nothing recorded
		return bridge.Answer{Text: refusal, IsError: true}
	}
	t := r.t
	turn := c.Turn
	if turn < 0 {
		turn = 0
	}
	halting := false // PROC-14 interrupts this run
	if refusal == "" {
		refusal, halting = r.refusal(c.Name, turn, s.m.Inference.MaxTurns)
	}
	if refusal == "" && r.markCall(turn, s.m.Inference.MaxTurns) {
		// A call the stream had not shown makes the max_turns-th turn a
		// tool call (PROC-14): refused, and the run interrupted.
		refusal, halting = bridge.RefusalMaxTurns(c.Name, s.m.Inference.MaxTurns), true
		select {
		case r.stop <- runMaxTurns:
		default:
		}
	}
	if halting {
		// The refusal is answered once the harness has been interrupted,
		// as a canceled call's is (PROC-16), so the harness cannot act on
		// it and exit before its SIGTERM.
		select {
		case <-r.halted:
		case <-ctx.Done():
		}
	}
	// The call ends with the run (ctx) or with the task's cancel (LOOP-16),
	// the latter once the harness has been interrupted: answered earlier,
	// the harness could go on to its next step before its SIGTERM (PROC-16).
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch := make(chan struct{})
	defer close(watch)
	go func() { // owned by this call: ends when the call returns
		select {
		case <-t.run.Canceled():
		case <-watch:
			return
		}
		select {
		case <-r.halted:
			cancel()
		case <-watch:
		}
	}()
	_, noAnswerBefore := t.state.NoAnswer()
	t.setPhase("turn") // LOOP-16: a cancel now lands in the bridged call's phase (PROC-16)
	content, isErr := t.dispatchWith(dctx, turn, u, refusal)
	if _, canceled := t.canceled(); !canceled {
		t.setPhase("inference")
	}
	if _, now := t.state.NoAnswer(); now && !noAnswerBefore {
		r.acceptedEWA(turn) // PROC-15: later turns' calls are refused
	}
	if _, failed := t.state.Failed(); failed { // INP-7, INP-12: the attempt ends, so the run does
		select {
		case r.stop <- runToolFailed:
		default:
		}
	}
	return bridge.Answer{Text: content, IsError: isErr}
}

// refusal is BRG-7's text for a call of turn, "" when it may run; halts
// says the refusal is PROC-14's, whose run is being interrupted.
func (r *hrun) refusal(name string, turn, maxTurns int) (text string, halts bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.maxed >= 0 && turn >= r.maxed:
		return bridge.RefusalMaxTurns(name, maxTurns), true
	case r.ewa >= 0 && turn > r.ewa:
		return bridge.RefusalEnding(name), false
	}
	return "", false
}

// markCall records a bridged call of turn; it reports true when that makes
// the max_turns-th turn one that shows a tool call, which the stream had
// not shown (PROC-14).
func (r *hrun) markCall(turn, maxTurns int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools[turn] {
		return false
	}
	r.tools[turn] = true
	if turn >= maxTurns-1 && r.maxed < 0 {
		r.maxed = turn
		return true
	}
	return false
}

// acceptedEWA records the turn end-without-answer was accepted in.
func (r *hrun) acceptedEWA(turn int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ewa < 0 {
		r.ewa = turn
	}
}
