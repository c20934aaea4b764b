package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/murmur-go/mur/a2a"
)

// follow reads a task stream after its first event to the end (SSE-2,
// SSE-3): every event is an update of task, the door closes the stream right
// after a terminal status (A2A §3.1.2, §3.1.6), and a murmur door also right
// after an interrupted one (METH-ST-2). Another door may keep the stream open
// past an interrupted status, so follow stops reading there; and such a door
// may end the stream of a task the first event shows interrupted. It returns
// the final state.
func (s *suite) follow(st *stream, t *a2a.Task) (a2a.TaskState, error) {
	final, last := a2a.TaskState(""), t.Status.State
	if last.Terminal() {
		final = last
	}
	for n := 2; ; n++ {
		ev, err := st.next()
		switch {
		case errors.Is(err, errStreamEnd) && final == "" && last.Interrupted() && !s.murmur:
			return last, nil
		case errors.Is(err, errStreamEnd) && final == "":
			return "", failf("the stream ended after %d events without a terminal or interrupted status (SSE-3)", n-1)
		case errors.Is(err, errStreamEnd):
			return final, nil
		case err != nil && final != "":
			return "", failf("the stream stayed open after the %s status (SSE-3): %v", final, err)
		case err != nil:
			return "", err
		case ev.err != nil:
			return "", failf("event %d is JSON-RPC error %d %q", n, *ev.err.Code, *ev.err.Message)
		case final != "":
			return "", failf("event %d came after the %s status, want the stream closed (SSE-3)", n, final)
		}
		r := ev.resp
		switch {
		case r.StatusUpdate != nil:
			if r.StatusUpdate.TaskID != t.ID || r.StatusUpdate.ContextID != t.ContextID {
				return "", failf("event %d updates %s/%s, want %s/%s", n, r.StatusUpdate.TaskID, r.StatusUpdate.ContextID, t.ID, t.ContextID)
			}
			last = r.StatusUpdate.Status.State
			switch {
			case last.Terminal() || last.Interrupted() && s.murmur:
				final = last
			case last.Interrupted():
				return last, nil // the door may keep the stream open (A2A §3.1.6)
			}
		case r.ArtifactUpdate != nil:
			if r.ArtifactUpdate.TaskID != t.ID || r.ArtifactUpdate.ContextID != t.ContextID {
				return "", failf("event %d updates %s/%s, want %s/%s", n, r.ArtifactUpdate.TaskID, r.ArtifactUpdate.ContextID, t.ID, t.ContextID)
			}
		default:
			return "", failf("event %d is %s, want a statusUpdate or artifactUpdate (SSE-3)", n, jsonOf(r))
		}
	}
}

// firstTask reads a stream's first event, which must be the task.
func (s *suite) firstTask(st *stream) (*a2a.Task, error) {
	ev, err := st.next()
	if errors.Is(err, errStreamEnd) {
		return nil, failf("the stream ended before its first event")
	}
	if err != nil {
		return nil, err
	}
	if ev.err != nil {
		return nil, failf("the first event is JSON-RPC error %d %q", *ev.err.Code, *ev.err.Message)
	}
	if ev.resp.Task == nil {
		return nil, failf("the first event is %s, want the task (SSE-3)", snippet(ev.result))
	}
	var raw struct {
		Task json.RawMessage `json:"task"`
	}
	_ = json.Unmarshal(ev.result, &raw)
	if err := s.checkTask(raw.Task, ev.resp.Task); err != nil {
		return nil, err
	}
	return ev.resp.Task, nil
}

// streamSend: METH-SS-2, SSE-1..3.
func streamSend(ctx context.Context, s *suite) error {
	if !s.card.Capabilities.Streaming {
		return skipf("the card says streaming false")
	}
	st, a, err := s.openStream(ctx, a2a.MethodSendStreamingMessage, s.sendParams(s.cfg.TaskText, false), nil)
	if err != nil {
		return err
	}
	if a != nil {
		return failf("a JSON body %s, want an event stream", snippet(a.ex.body))
	}
	defer st.Close()
	if err := st.checkHeaders(); err != nil {
		return err
	}
	t, err := s.firstTask(st)
	if err != nil {
		return err
	}
	if s.murmur && t.Status.State != a2a.TaskStateSubmitted && t.Status.State != a2a.TaskStateRejected {
		return failf("the first event holds the task in %s, want TASK_STATE_SUBMITTED (METH-SS-2)", t.Status.State)
	}
	if _, err := s.follow(st, t); err != nil {
		return err
	}
	if t.Status.State == a2a.TaskStateRejected {
		return skipf("the door rejected the task: %q", statusText(t))
	}
	s.accepted = true
	s.track(t)
	return nil
}

// streamUnsupported: CARD-5, METH-ST-1 (A2A capability validation).
func streamUnsupported(ctx context.Context, s *suite) error {
	if s.card.Capabilities.Streaming {
		return skipf("the card says streaming true")
	}
	for m, p := range map[string]any{
		a2a.MethodSendStreamingMessage: s.sendParams(s.cfg.TaskText, false),
		a2a.MethodSubscribeToTask:      map[string]any{"id": unknownTaskID},
	} {
		st, a, err := s.openStream(ctx, m, p, nil)
		if err != nil {
			return err
		}
		if st != nil {
			st.Close()
			return failf("%s opened a stream, want -32004", m)
		}
		if err := s.expectA2A(a, -32004, "UNSUPPORTED_OPERATION", nil); err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
	}
	return nil
}

// subscribeLive: METH-ST-2 — the task as it stands, then its updates until
// its final status. The suite cancels a task it holds live (SlowTaskText's)
// and one the first event shows interrupted, which a door may keep open for
// as long as it waits for input (A2A §3.1.6), and expects the stream to end
// CANCELED; a door that closed the interrupted task's stream first passes too.
func subscribeLive(ctx context.Context, s *suite) error {
	if !s.card.Capabilities.Streaming {
		return skipf("the card says streaming false")
	}
	t, slow, err := s.liveTask(ctx)
	if err != nil {
		return err
	}
	st, a, err := s.openStream(ctx, a2a.MethodSubscribeToTask, map[string]any{"id": string(t.ID)}, nil)
	if err != nil {
		return err
	}
	if a != nil {
		if !slow && a.err != nil && *a.err.Code == -32004 {
			return skipf("the task ended before the subscription%s", slowHint(slow))
		}
		return failf("a JSON body %s, want an event stream", snippet(a.ex.body))
	}
	defer st.Close()
	if err := st.checkHeaders(); err != nil {
		return err
	}
	first, err := s.firstTask(st)
	if err != nil {
		return err
	}
	if first.ID != t.ID {
		return failf("the first event holds task %s, want %s", first.ID, t.ID)
	}
	if slow && first.Status.State.Terminal() {
		return failf("the slow task is %s in the first event, want it live", first.Status.State)
	}
	canceled := slow || first.Status.State.Interrupted()
	if canceled {
		if _, err := s.cancel(ctx, t.ID); err != nil {
			return err
		}
	}
	final, err := s.follow(st, first)
	if err != nil {
		return err
	}
	if canceled && final != a2a.TaskStateCanceled && !(final.Interrupted() && !slow) {
		return failf("the canceled task's stream ended %s, want TASK_STATE_CANCELED", final)
	}
	return nil
}

// subscribeEnded: METH-ST-1, RPC-4 — one JSON body, never a stream.
func subscribeEnded(ctx context.Context, s *suite) error {
	if !s.card.Capabilities.Streaming {
		return skipf("the card says streaming false")
	}
	t, err := s.endedTask(ctx)
	if err != nil {
		return needs("an ended task", err)
	}
	return s.expectStreamRefused(ctx, map[string]any{"id": string(t.ID)}, -32004, "UNSUPPORTED_OPERATION",
		map[string]string{"taskId": string(t.ID), "state": string(t.Status.State)})
}

// subscribeUnknown: METH-ST-1.
func subscribeUnknown(ctx context.Context, s *suite) error {
	if !s.card.Capabilities.Streaming {
		return skipf("the card says streaming false")
	}
	return s.expectStreamRefused(ctx, map[string]any{"id": unknownTaskID}, -32001, "TASK_NOT_FOUND",
		map[string]string{"taskId": unknownTaskID})
}

func (s *suite) expectStreamRefused(ctx context.Context, params any, code int64, reason string, md map[string]string) error {
	st, a, err := s.openStream(ctx, a2a.MethodSubscribeToTask, params, nil)
	if err != nil {
		return err
	}
	if st != nil {
		st.Close()
		return failf("SubscribeToTask opened a stream, want one JSON body with error %d", code)
	}
	return s.expectA2A(a, code, reason, md)
}
