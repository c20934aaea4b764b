// Package doortest runs a door's tasks in tests by script, so a test serves a
// real door over a real task table without a session: an Executor pulls each
// task from the registry and hands it to a func, and Script is the func most
// tests use, which acts on the task's text. The shape is a2a-go's test
// executor, built from func fields.
package doortest

import (
	"context"
	"strings"
	"sync"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// Executor runs a task table's tasks, each on a goroutine of its own, until
// Stop. Its goroutines are its own: Stop ends and waits for them all.
type Executor struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	runs   chan *tasktable.Run
}

// Start pulls reg's tasks and runs execute on each; a nil execute is
// Script{}.Execute. execute must return once ctx ends.
func Start(reg *tasktable.Registry, execute func(ctx context.Context, run *tasktable.Run)) *Executor {
	if execute == nil {
		execute = Script{}.Execute
	}
	ctx, cancel := context.WithCancel(context.Background())
	ex := &Executor{cancel: cancel, runs: make(chan *tasktable.Run, 64)} // 64: more runs than any test starts
	ex.wg.Go(func() {
		for {
			run, err := reg.Next(ctx)
			if err != nil {
				return
			}
			select {
			case ex.runs <- run:
			default:
			}
			ex.wg.Go(func() { execute(ctx, run) })
		}
	})
	return ex
}

// Runs yields each run the executor took, in order, for a test that watches
// or drives one by hand (the first 64 only).
func (ex *Executor) Runs() <-chan *tasktable.Run { return ex.runs }

// Stop ends the executor and every task it runs, and waits for them.
func (ex *Executor) Stop() {
	ex.cancel()
	ex.wg.Wait()
}

// Script executes a task by its text:
//
//	Hold ("hold")  waits until the task is canceled
//	"ask:<q>"      asks Question(q) (q itself when nil), then completes with
//	               the reply's text; a task that may not ask ends as it is
//	"fail:<m>"     ends with Failure(m) (failed with status text m when nil)
//	anything else  completes with Answer(text) (the text itself when nil)
type Script struct {
	Hold     string
	Question func(q string) string
	Failure  func(m string) tasktable.Outcome
	Answer   func(text string) string
}

// Answers is a Script's Answer that answers every task with text.
func Answers(text string) func(string) string { return func(string) string { return text } }

// Execute runs one task by the script; it returns once the task has ended or
// ctx has.
func (s Script) Execute(ctx context.Context, run *tasktable.Run) {
	text := a2a.Text(run.Message().Parts)
	hold := s.Hold
	if hold == "" {
		hold = "hold"
	}
	switch {
	case text == hold:
		select {
		case <-run.Canceled():
		case <-ctx.Done():
		}
	case strings.HasPrefix(text, "ask:"):
		q := strings.TrimPrefix(text, "ask:")
		if s.Question != nil {
			q = s.Question(q)
		}
		if !run.AskInput(q) {
			return
		}
		select {
		case m := <-run.Replies():
			run.Finish(tasktable.Outcome{State: a2a.TaskStateCompleted, Response: a2a.Text(m.Message.Parts)})
		case <-run.Canceled():
		case <-ctx.Done():
		}
	case strings.HasPrefix(text, "fail:"):
		m := strings.TrimPrefix(text, "fail:")
		if s.Failure != nil {
			run.Finish(s.Failure(m))
			return
		}
		run.Finish(tasktable.Outcome{State: a2a.TaskStateFailed, Message: m})
	default:
		if s.Answer != nil {
			text = s.Answer(text)
		}
		run.Finish(tasktable.Outcome{State: a2a.TaskStateCompleted, Response: text})
	}
}

// Complete is an execute func that completes every task at once with
// response, whatever its text.
func Complete(response string) func(context.Context, *tasktable.Run) {
	return func(_ context.Context, run *tasktable.Run) {
		run.Finish(tasktable.Outcome{State: a2a.TaskStateCompleted, Response: response})
	}
}
