package member

import (
	"context"
	"sync"

	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-go/mur/a2a"
)

// cascade is the roster's cancel: cascade, run by Abandon
// once the calls' goroutines have ended: the calling task is ending without
// having these calls' outcomes delivered, so every member task one of them
// holds that may still be live gets a CancelTask, all at once, each bounded
// by Timing.Request and sent with this member's formation token. A member
// task whose cancel is accepted (CancelTask answers the task, now CANCELED)
// marks its call cascaded; an ended one (-32002) or an unreachable door
// changes nothing. The member, if it waits on members of its own, cascades
// further when its task ends so.
func (s *callSet) cascade() {
	s.mu.Lock()
	var live []*call
	for _, c := range s.calls {
		if c.Arrived() && c.memberTask != "" && !c.canceled && c.cl != nil && mayBeLive(c.end.status) {
			c.canceled = true
			live = append(live, c)
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range live {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(oteltrace.ContextWithSpan(context.Background(), c.span), s.cfg.Timing.Request) // OTEL-1
			defer cancel()
			t, err := c.cl.CancelTask(ctx, a2a.CancelTaskRequest{ID: a2a.TaskID(c.memberTask)})
			if err != nil || t == nil || t.Status.State != a2a.TaskStateCanceled {
				return
			}
			s.mu.Lock()
			c.cascaded = true
			if c.end.status == statusAbandoned {
				c.end.output = outputCascaded(c.member)
			}
			s.mu.Unlock()
		})
	}
	wg.Wait()
}

// mayBeLive reports whether a call that ended with status may have left its
// member's task running: abandoned while held, or timed out (CALL-10).
func mayBeLive(status string) bool {
	return status == statusAbandoned || status == statusTimedOut
}
