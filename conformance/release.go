package conformance

import (
	"context"
	"encoding/json"

	"github.com/murmur-go/mur/a2a"
)

// maxTracked bounds the tasks release follows: a run starts a few dozen.
const maxTracked = 64

// track notes a task the suite started, for release.
func (s *suite) track(t *a2a.Task) {
	if t == nil || t.Status.State.Terminal() || len(s.started) >= maxTracked {
		return
	}
	s.started = append(s.started, t.ID)
}

// release runs between checks: it cancels every task the suite started
// that has not ended, and forgets it. No check needs another's task live: a
// later check reads the returnImmediately task only by its context id and
// the ended task only once it ended. A door that asks its operator may hold
// its session for the asking task (input.md INP-9), and a task the suite
// left waiting, or one still on its way to waiting, would hold every later
// one back: the checks after it would time out judging the suite's
// leftovers rather than the door. These requests are the suite's
// housekeeping and judge nothing; an error forgets the task.
func (s *suite) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	for _, id := range s.started {
		a, err := s.call(ctx, a2a.MethodGetTask, map[string]any{"id": string(id)}, nil)
		if err != nil || a.err != nil {
			continue
		}
		var t a2a.Task
		if json.Unmarshal(a.result, &t) != nil || t.Status.State.Terminal() {
			continue
		}
		_, _ = s.call(ctx, a2a.MethodCancelTask, map[string]any{"id": string(id)}, nil)
	}
	s.started = s.started[:0]
}
