package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// The outcomes of a capsule step's delegation record (tools.md DLG-9).
const (
	capsuleCompleted = "completed"
	capsuleTimedOut  = "timed_out"
	capsuleFailed    = "failed"
	capsuleRefused   = "refused"
)

// capsuleHint is the description's sentence on capsule steps, when the
// capsule may run any.
func capsuleHint(c *Capsules) string {
	if c == nil || len(c.Allow) == 0 {
		return ""
	}
	return "A step may instead name a capsule (one capabilities.spawn.allow lists) with its task as input, a string or {\"objective\": \"<text>\"}: " +
		"the runtime starts that sub-capsule, hands it the task and settles the step with its answer; independent capsule steps run at the same time. "
}

// capsuleStep runs a capsule step (PLAN-2, PLAN-6): a delegation through
// the session's hub, the same referee and launch as delegate-task's (DLG-2,
// DLG-3), whose child's task is read by GetTask every 500 ms within the
// delegation deadline; the step settles with the child's answer (cut at 64
// KiB). The child is ended and reaped before the step settles; a cancelled
// plan ends it at once (PLAN-7). It writes delegation_start and delegation.
func (r *planRun) capsuleStep(ctx context.Context, s *planStep) attemptResult {
	c := r.t.cfg.Capsules
	version, ok := r.t.capsuleVersion(s.Capsule)
	if !ok || c == nil {
		return attemptResult{err: planCapsuleNotAllowed(s.ID, s.Capsule)}
	}
	input, err := substitute(s.Input, r.resolve)
	if err != nil {
		return attemptResult{err: err.Error()}
	}
	task, ok := capsuleTask(input)
	if !ok {
		return attemptResult{err: planCapsuleInput(s.ID)}
	}
	start := r.t.now()
	id := a2a.NewID(a2a.PrefixDelegation)
	rec := trace.Delegation{Capsule: s.Capsule, Version: version}
	end := func(outcome, reason string, ses string) {
		rec.DurationMS, rec.Outcome = r.t.now().Sub(start).Milliseconds(), outcome
		if reason != "" {
			rec.Reason = &reason
		}
		if ses != "" {
			rec.ChildSessionID = &ses
		}
		r.write(rec)
	}
	var trust, ctxID string
	if ts := r.cc.Task; ts != nil {
		trust, ctxID = ts.Trust, ts.ContextID
	}
	child, err := c.Hub.Delegate(ctx, spawn.Request{Capsule: s.Capsule, Version: version, Task: task, ID: id,
		ContextID: ctxID, Trust: trust, Stay: true,
		Ready: func(ch *spawn.Child) {
			r.write(trace.DelegationStart{DelegationID: id, Capsule: s.Capsule, Version: version,
				ChildSessionID: ch.SessionID, ChildWorkdir: ch.RelWorkdir})
		}})
	var ref *spawn.Refusal
	var le *spawn.LaunchError
	switch {
	case errors.As(err, &ref):
		end(capsuleRefused, ref.Sentence, "")
		return attemptResult{err: ref.Sentence}
	case err != nil:
		rec.DelegationID = &id
		ses, why := "", err.Error()
		if errors.As(err, &le) {
			ses = le.SessionID
		}
		if ctx.Err() != nil {
			why = planCanceled // the plan stopped while its child came up (PLAN-7)
		}
		end(capsuleFailed, why, ses)
		return attemptResult{err: why}
	}
	rec.DelegationID = &id
	outcome, output, why := r.readAnswer(ctx, c, child)
	child.Terminate("its plan step settled")
	<-child.Exited()
	end(outcome, why, child.SessionID)
	if outcome != capsuleCompleted {
		return attemptResult{output: output, err: why}
	}
	return attemptResult{output: output}
}

// readAnswer polls the child's task every Poll until it ends, the deadline
// from its ready line passes, its door stops answering, or the plan stops
// (PLAN-6).
func (r *planRun) readAnswer(ctx context.Context, c *Capsules, child *spawn.Child) (outcome string, output *string, why string) {
	deadline := c.Deadline
	if deadline <= 0 {
		deadline = 600 * time.Second
	}
	poll := c.Poll
	if poll <= 0 {
		poll = 500 * time.Millisecond
	}
	dl := time.NewTimer(time.Until(child.Ready.Add(deadline)))
	defer dl.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	missed := 0
	for {
		select {
		case <-ctx.Done():
			return capsuleFailed, nil, planCanceled
		case <-dl.C:
			return capsuleTimedOut, nil, fmt.Sprintf("%s did not answer within %ds", child.Capsule, int(deadline/time.Second))
		case <-child.Exited():
			return capsuleFailed, nil, fmt.Sprintf("%s ended before it answered", child.Capsule)
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		t, err := child.Client().GetTask(rctx, a2a.GetTaskRequest{ID: a2a.TaskID(child.TaskID)})
		cancel()
		switch {
		case ctx.Err() != nil:
			return capsuleFailed, nil, planCanceled
		case err != nil && client.IsNoAnswer(err):
			if missed++; missed >= 2 {
				return capsuleFailed, nil, fmt.Sprintf("%s's door stopped answering", child.Capsule)
			}
			continue
		case err != nil:
			return capsuleFailed, nil, fmt.Sprintf("%s's door answered GetTask with an error: %v", child.Capsule, errText(err))
		}
		missed = 0
		if !t.Status.State.Terminal() {
			continue
		}
		if t.Status.State == a2a.TaskStateCompleted {
			out, _ := tool.Cut64(responseText(t))
			return capsuleCompleted, &out, ""
		}
		why := fmt.Sprintf("%s's task ended %s", child.Capsule, t.Status.State)
		if m := t.Status.Message; m != nil && a2a.Text(m.Parts) != "" {
			why += ": " + a2a.Text(m.Parts)
		}
		return capsuleFailed, nil, why
	}
}

// errText is a JSON-RPC error's code and message, without any address.
func errText(err error) string {
	var re *a2a.Error
	if errors.As(err, &re) {
		return fmt.Sprintf("JSON-RPC error %d: %s", re.Code, re.Message)
	}
	return "an unreadable answer"
}

// responseText is the text of a completed task's response artifact.
func responseText(t *a2a.Task) string {
	for _, a := range t.Artifacts {
		if a.Name == a2a.ArtifactResponse {
			return a2a.Text(a.Parts)
		}
	}
	return ""
}

// capsuleTask is a capsule step's task: its input as a string or
// {"objective": "<text>"} (PLAN-2), after substitution.
func capsuleTask(in json.RawMessage) (string, bool) {
	var text string
	if json.Unmarshal(in, &text) == nil {
		return text, true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(in, &obj) != nil {
		return "", false
	}
	return tool.RawString(obj["objective"])
}
