package agent

import (
	"context"
	"iter"
)

// Step is what one step of a transport came to: an HTTP driver's turn (one
// inference call and the tools it asked for) or one run of a harness CLI.
type Step struct {
	// Answered is true when the model answered with no tool call; Ending is
	// then that attempt's ending, which the policy may still reopen.
	Answered bool
	// Ended is true when the attempt ended for good with Ending.
	Ended  bool
	Ending Ending
}

// Transport is how a task's steps reach a model. The loop calls Begin once,
// then Step until the task ends, and Resume after the policy granted another
// step. Each returns ok false to end the task with the Ending it gives.
type Transport interface {
	// Begin prepares the task's first step (a harness's thread entry, THR-2).
	Begin(ctx context.Context) (Ending, bool)
	// Step runs one step.
	Step(ctx context.Context) Step
	// Resume prepares the step after a reopen (a harness resumes the session
	// its last run named, PROC-12).
	Resume(ctx context.Context) (Ending, bool)
}

// Policy is the per-task rule the loop asks between steps.
type Policy interface {
	// Canceled reports the canceled Ending once the task's cancel landed
	// (LOOP-16).
	Canceled() (Ending, bool)
	// OutOfTurns reports the max_turns Ending once inference.max_turns
	// steps' turns are spent (LOOP-8).
	OutOfTurns() (Ending, bool)
	// AfterAnswer is LOOP-12: an attempt that answered passes the
	// continuation, keep_working, done_check and the hooks' reopen; more is
	// true when the task goes on, else next is how it ended.
	AfterAnswer(ctx context.Context, answer Ending) (next Ending, more bool)
}

// EventKind says what an Event reports.
type EventKind int

const (
	// Stepped: a step that did not end the task (Step holds it).
	Stepped EventKind = iota
	// Ended: the task ended (Ending holds how); always the last event.
	Ended
)

// Event is one thing the loop reports.
type Event struct {
	Kind   EventKind
	Step   Step   // Stepped
	Ending Ending // Ended
}

// Run is the agent loop of one task (LOOP-7..LOOP-20): until the task ends,
// a cancel or a spent turn budget ends it before the next step; a step that
// ended the attempt ends it; an answer goes to the policy, which ends the
// task or grants another step. The sequence ends with one Ended event; a
// consumer that stops early leaves the task unended.
func Run(ctx context.Context, p Policy, tr Transport) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		end := func(e Ending) { yield(Event{Kind: Ended, Ending: e}) }
		if e, ok := tr.Begin(ctx); !ok {
			end(e)
			return
		}
		for {
			if e, ok := p.Canceled(); ok {
				end(e)
				return
			}
			if e, ok := p.OutOfTurns(); ok {
				end(e)
				return
			}
			st := tr.Step(ctx)
			if st.Ended {
				end(st.Ending)
				return
			}
			if !yield(Event{Kind: Stepped, Step: st}) {
				return
			}
			if !st.Answered {
				continue
			}
			next, more := p.AfterAnswer(ctx, st.Ending)
			if !more {
				end(next)
				return
			}
			if e, ok := tr.Resume(ctx); !ok {
				end(e)
				return
			}
		}
	}
}

// Sink is one place a task's ending goes: the trace, result.txt, the A2A
// outcome, a span, stdout.
type Sink interface {
	TaskEnded(Ending)
}

// SinkFunc is a Sink written as a function.
type SinkFunc func(Ending)

// TaskEnded calls f.
func (f SinkFunc) TaskEnded(e Ending) { f(e) }

// Fan hands e to every sink, in order: a sink may rely on the ones before
// it (the trace's records precede the outcome the caller reads).
func Fan(e Ending, sinks ...Sink) {
	for _, s := range sinks {
		s.TaskEnded(e)
	}
}
