package member

import (
	"context"
	"errors"
	"sync"
	"time"

	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/formation"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/tool"
)

// send makes c's first offer inside the tool call (CALL-3..8) and returns
// the tool result. A busy or held call goes on in a goroutine of the set.
func (s *callSet) send(ctx context.Context, c *call, trust string) tool.Result {
	ctx, c.span = telemetry.StartMemberCall(ctx, c.member, c.id)
	callee, err := s.cfg.Directory.Lookup(ctx, c.member)
	if err != nil {
		var ae *formation.AddressError
		why := "the calling task ended before the call was sent" // ours
		if errors.As(err, &ae) {
			why = ae.Error() // CHAN-5
		}
		return s.endNow(c, statusFailed, why, true)
	}
	if !s.cfg.Allow.Allows(callee.URL) { // CALL-6, CRED-2
		return s.endNow(c, statusFailed, outputEgress(c.member), true)
	}
	if why := s.cfg.checkCard(ctx, c.member, callee.URL); why != "" { // A2A §8.4
		return s.endNow(c, statusFailed, why, true)
	}
	cl, err := client.New(client.Config{BaseURL: callee.URL, Token: string(callee.Token), HTTPClient: s.cfg.HTTPClient})
	if err != nil {
		return s.endNow(c, statusFailed, outputUnreached(c.member, "its address could not be used"), true)
	}
	c.cl = cl
	a := s.offer(ctx, c, trust)
	abandoned := ctx.Err() != nil // the calling task ended while the offer was on its way
	var recs []tool.Rec
	switch a.kind {
	case offerNoAnswer:
		if abandoned {
			return s.endNow(c, statusAbandoned, outputAbandonedInFlight(c.member), false)
		}
		return s.endNow(c, statusFailed, outputUnreached(c.member, a.why), true)
	case offerRejected:
		return s.endNow(c, statusRejected, a.why, true)
	case offerFailed:
		return s.endNow(c, statusFailed, a.why, true)
	case offerBusy:
		recs = append(recs, s.busyRec(c, 1, a.message))
		if abandoned {
			return s.endNow(c, statusAbandoned, outputAbandonedBetween(c.member), false, recs...)
		}
	case offerTaken:
		s.hold(c, a.taskID)
		recs = append(recs, s.startRec(c, a.taskID))
		if abandoned {
			s.cancelTask(c, a.taskID)
			return s.endNow(c, statusAbandoned, outputAbandonedTaken(c.member), false, recs...)
		}
	}
	s.mu.Lock()
	c.Out = true
	s.mu.Unlock()
	res := tool.Result{Status: tool.Passed, Records: recs}
	if a.kind == offerBusy {
		res.Summary = callSummary(c.member, statusBusy)
		res.Data = tool.JSON(map[string]string{"call_id": c.id, "member": c.member, "output": outputBusy(c.member), "status": statusBusy})
		res.Notes = []string{noteBusy(c.member, c.id, s.cfg.deadlineSecs())}
		s.crew.Go(ctx, func(ctx context.Context) { s.reoffer(ctx, c, trust) })
		return res
	}
	res.Summary = callSummary(c.member, statusStarted)
	res.Data = tool.JSON(map[string]string{"call_id": c.id, "member": c.member, "status": statusStarted, "task_id": a.taskID})
	res.Notes = []string{noteStarted(c.member, c.id)}
	s.crew.Go(ctx, func(ctx context.Context) { s.poll(ctx, c, a.taskID) })
	return res
}

// endNow ends c inside its tool call and accounts for it at once: its
// member_call follows the call's tool_call (CALL-11). recs come first.
func (s *callSet) endNow(c *call, status, output string, delivered bool, recs ...tool.Rec) tool.Result {
	s.finish(c, ending{status: status, output: output})
	s.mu.Lock()
	recs = append(recs, s.account(c, delivered, status))
	out := c.end.output
	s.mu.Unlock()
	res := tool.Result{Status: tool.Failed, Summary: callSummary(c.member, status), Records: recs,
		Data:  tool.JSON(map[string]string{"call_id": c.id, "member": c.member, "output": out, "status": status}),
		Notes: []string{noteEnded(c.member, c.id, status, s.ts.CallerMember)}}
	return res
}

// hold records that the member holds c's task (CALL-4).
func (s *callSet) hold(c *call, taskID string) {
	s.mu.Lock()
	c.memberTask = taskID
	s.mu.Unlock()
}

// offer sends one SendMessage for c (CALL-3), bounded by Timing.Request and,
// once abandon ends, by Timing.InFlight more (CALL-9).
func (s *callSet) offer(abandon context.Context, c *call, trust string) offerAnswer {
	t := s.cfg.Timing
	rctx, cancel := context.WithTimeout(oteltrace.ContextWithSpan(context.Background(), c.span), t.Request)
	defer cancel()
	var mu sync.Mutex
	var capTimer *time.Timer
	stop := context.AfterFunc(abandon, func() {
		mu.Lock()
		capTimer = time.AfterFunc(t.InFlight, cancel)
		mu.Unlock()
	})
	defer func() {
		stop()
		mu.Lock()
		if capTimer != nil {
			capTimer.Stop()
		}
		mu.Unlock()
	}()
	s.mu.Lock()
	c.offers++
	s.mu.Unlock()
	req := a2a.SendMessageRequest{
		Message:       a2a.Message{MessageID: a2a.PrefixMessage + c.id, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(c.task)}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	}
	resp, err := c.cl.SendMessage(rctx, req, client.WithTaskOrigin(a2a.OriginPeer, a2a.Trust(trust)))
	return classifyOffer(c.member, resp, err, err != nil && rctx.Err() != nil, t.Request)
}

// cancelTask sends CancelTask for a task the member took just after the
// calling task ended (CALL-9); its answer changes nothing.
func (s *callSet) cancelTask(c *call, taskID string) {
	s.mu.Lock()
	c.canceled = true
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(oteltrace.ContextWithSpan(context.Background(), c.span), s.cfg.Timing.Request)
	defer cancel()
	_, _ = c.cl.CancelTask(ctx, a2a.CancelTaskRequest{ID: a2a.TaskID(taskID)})
}

// reoffer offers a busy member the task again until it takes it (then
// polls), the call ends, or the calling task ends (CALL-9).
func (s *callSet) reoffer(ctx context.Context, c *call, trust string) {
	t := s.cfg.Timing
	deadline := time.NewTimer(time.Until(c.deadline))
	defer deadline.Stop()
	wait, missed, offer := t.FirstRetry, 0, 1
	for {
		next := time.NewTimer(wait + t.Jitter())
		select {
		case <-ctx.Done():
			next.Stop()
			s.finish(c, ending{status: statusAbandoned, output: outputAbandonedBetween(c.member)})
			return
		case <-deadline.C:
			next.Stop()
			s.mu.Lock()
			n := c.offers
			s.mu.Unlock()
			s.finish(c, ending{status: statusRejected, output: outputStayedBusy(c.member, s.cfg.deadlineSecs(), n)})
			return
		case <-next.C:
		}
		offer++
		a := s.offer(ctx, c, trust)
		abandoned := ctx.Err() != nil
		switch a.kind {
		case offerBusy:
			missed = 0
			s.write(c, s.busyRec(c, offer, a.message))
			if abandoned {
				s.finish(c, ending{status: statusAbandoned, output: outputAbandonedBetween(c.member)})
				return
			}
		case offerNoAnswer:
			missed++
			switch {
			case abandoned:
				s.finish(c, ending{status: statusAbandoned, output: outputAbandonedInFlight(c.member)})
				return
			case missed >= 2:
				s.finish(c, ending{status: statusUnreachable, output: outputStoppedAnswering(c.member, a.why)})
				return
			}
		case offerTaken:
			s.hold(c, a.taskID)
			s.write(c, s.startRec(c, a.taskID))
			if abandoned {
				s.cancelTask(c, a.taskID)
				s.finish(c, ending{status: statusAbandoned, output: outputAbandonedTaken(c.member)})
				return
			}
			s.poll(ctx, c, a.taskID)
			return
		case offerRejected:
			s.finish(c, ending{status: statusRejected, output: a.why})
			return
		default:
			s.finish(c, ending{status: statusFailed, output: a.why})
			return
		}
		wait = min(2*wait, t.MaxRetry)
	}
}

// poll reads the member's task every Timing.Poll until it ends, the call's
// deadline passes, the door stops answering or the calling task ends (CALL-10).
func (s *callSet) poll(ctx context.Context, c *call, taskID string) {
	t := s.cfg.Timing
	deadline := time.NewTimer(time.Until(c.deadline))
	defer deadline.Stop()
	tick := time.NewTicker(t.Poll)
	defer tick.Stop()
	missed := 0
	for {
		select {
		case <-ctx.Done():
			s.finish(c, ending{status: statusAbandoned, output: outputAbandonedHeld(c.member)})
			return
		case <-deadline.C:
			s.finish(c, ending{status: statusTimedOut, output: outputTimedOut(c.member, s.cfg.deadlineSecs())})
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(ctx, t.Request)
		task, err := c.cl.GetTask(rctx, a2a.GetTaskRequest{ID: a2a.TaskID(taskID)})
		cancel()
		if ctx.Err() != nil {
			s.finish(c, ending{status: statusAbandoned, output: outputAbandonedHeld(c.member)})
			return
		}
		switch {
		case err != nil && client.IsNoAnswer(err):
			if missed++; missed >= 2 {
				s.finish(c, ending{status: statusUnreachable, output: outputStoppedAnswering(c.member, describe(err, t.Request))})
				return
			}
		case err != nil:
			s.finish(c, ending{status: statusFailed, output: failedWhy(c.member, a2a.MethodGetTask, err)})
			return
		case task.Status.State.Terminal():
			status, output, below := terminal(c.member, task)
			s.finish(c, ending{status: status, output: output, below: below})
			return
		default:
			missed = 0
		}
	}
}
