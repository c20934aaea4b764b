package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/murmur-go/mur/a2a"
)

// cancelLive: METH-CT-1, TASK-3 — a live task is answered CANCELED and
// reads CANCELED at once.
func cancelLive(ctx context.Context, s *suite) error {
	t, slow, err := s.liveTask(ctx)
	if err != nil {
		return err
	}
	a, err := s.call(ctx, a2a.MethodCancelTask, map[string]any{"id": string(t.ID)}, nil)
	if err != nil {
		return err
	}
	if a.err != nil && *a.err.Code == -32002 && !slow {
		return skipf("the task ended before the cancel reached it%s", slowHint(slow))
	}
	c, err := s.taskResult(a, "CancelTask")
	if err != nil {
		return err
	}
	if c.ID != t.ID || c.Status.State != a2a.TaskStateCanceled {
		return failf("CancelTask answered %s in %s, want %s in TASK_STATE_CANCELED", c.ID, c.Status.State, t.ID)
	}
	got, err := s.getTask(ctx, t.ID, nil)
	if err != nil {
		return err
	}
	if got.Status.State != a2a.TaskStateCanceled {
		return failf("GetTask after the cancel reads %s, want TASK_STATE_CANCELED (METH-CT-1)", got.Status.State)
	}
	return nil
}

// cancelEnded: METH-CT-1, RPC-4 — CancelTask on an ended task changes
// nothing. A COMPLETED, FAILED or REJECTED task is -32002 naming the task and
// its state (A2A §3.1.5). A CANCELED one may also be answered as it stands or
// -32001 once purged, since A2A §3.3.1 makes cancel idempotent; a murmur door
// answers -32002 for every ended task (METH-CT-1).
func cancelEnded(ctx context.Context, s *suite) error {
	t, err := s.endedTask(ctx)
	if err != nil {
		return needs("an ended task", err)
	}
	a, err := s.call(ctx, a2a.MethodCancelTask, map[string]any{"id": string(t.ID)}, nil)
	if err != nil {
		return err
	}
	again := t.Status.State == a2a.TaskStateCanceled && !s.murmur
	switch {
	case again && a.err == nil:
		c, err := s.taskResult(a, "CancelTask")
		if err != nil {
			return err
		}
		if c.ID != t.ID || c.Status.State != a2a.TaskStateCanceled {
			return failf("CancelTask on canceled task %s answered %s in %s, want -32002 or the task as it stands (A2A §3.3.1)",
				t.ID, c.ID, c.Status.State)
		}
	case again && *a.err.Code == -32001:
		return s.expectA2A(a, -32001, "TASK_NOT_FOUND", nil) // canceled and purged (A2A §3.3.1)
	default:
		md := map[string]string{"taskId": string(t.ID), "state": string(t.Status.State)}
		if err := s.expectA2A(a, -32002, "TASK_NOT_CANCELABLE", md); err != nil {
			return err
		}
		if want := "Task cannot be canceled: it is already " + string(t.Status.State); s.murmur && *a.err.Message != want {
			return failf("message %q, want %q (RPC-4)", *a.err.Message, want)
		}
	}
	got, err := s.getTask(ctx, t.ID, nil)
	if err != nil {
		return err
	}
	if got.Status.State != t.Status.State || s.murmur && got.Status.Timestamp != t.Status.Timestamp {
		return failf("after the cancel the task reads %s at %s, want it unchanged (%s at %s)",
			got.Status.State, got.Status.Timestamp, t.Status.State, t.Status.Timestamp)
	}
	return nil
}

// cancelUnknown: METH-CT-1.
func cancelUnknown(ctx context.Context, s *suite) error {
	a, err := s.call(ctx, a2a.MethodCancelTask, map[string]any{"id": unknownTaskID}, nil)
	if err != nil {
		return err
	}
	if err := s.expectA2A(a, -32001, "TASK_NOT_FOUND", map[string]string{"taskId": unknownTaskID}); err != nil {
		return err
	}
	a, err = s.call(ctx, a2a.MethodCancelTask, map[string]any{}, nil)
	if err != nil {
		return err
	}
	if !s.murmur && a.err != nil && *a.err.Code == -32001 {
		return nil // a door that reads the missing id as "" is within A2A
	}
	if err := s.expectStandard(a, -32602, ""); err != nil {
		return fmt.Errorf("CancelTask without an id: %w", err)
	}
	return nil
}

// extendedCard: METH-XC-1, CARD-7 — without the capability the method is
// refused (-32004 on a murmur door; A2A v1.0 also names -32007); with it and
// a token, the extended card parses strictly and, on a murmur door, equals
// the public card with the capsule extension restored.
func extendedCard(ctx context.Context, s *suite) error {
	a, err := s.call(ctx, a2a.MethodGetExtendedAgentCard, map[string]any{}, nil)
	if err != nil {
		return err
	}
	if !s.card.Capabilities.ExtendedAgentCard {
		if !s.murmur && a.err != nil && *a.err.Code == -32007 {
			return nil
		}
		return s.expectA2A(a, -32004, "UNSUPPORTED_OPERATION", map[string]string{})
	}
	if s.cfg.Token == "" {
		return skipf("the extended card needs a token and none was given")
	}
	res, err := a.ok()
	if err != nil {
		return err
	}
	if err := validate(res, cardSpec, "extended card"); err != nil {
		return err
	}
	if !s.murmur {
		return nil
	}
	return sameButCapsule(s.rawCard, res)
}

// sameButCapsule checks CARD-7: every key of the extended card equals the
// public card's, but the extensions, which gain the capsule extension
// between door and stream.
func sameButCapsule(public, extended []byte) error {
	var pub, ext map[string]any
	_ = json.Unmarshal(public, &pub)
	_ = json.Unmarshal(extended, &ext)
	pc, _ := pub["capabilities"].(map[string]any)
	ec, _ := ext["capabilities"].(map[string]any)
	pe, _ := pc["extensions"].([]any)
	ee, _ := ec["extensions"].([]any)
	if len(pe) != 2 || len(ee) != 3 || !reflect.DeepEqual(ee[0], pe[0]) || !reflect.DeepEqual(ee[2], pe[1]) {
		return failf("extended card extensions %s, want the public card's door and stream with the capsule extension between (CARD-7)", jsonOf(ee))
	}
	var card a2a.AgentCard
	_ = json.Unmarshal(extended, &card)
	if err := checkExtensions(&card, true); err != nil {
		return fmt.Errorf("extended card: %w", err)
	}
	delete(pc, "extensions")
	delete(ec, "extensions")
	delete(pub, "signatures") // each card is signed over its own content (A2A §8.4)
	delete(ext, "signatures")
	if !reflect.DeepEqual(pub, ext) {
		return failf("the extended card differs from the public card outside the extensions (CARD-7)")
	}
	return nil
}

// pushUnsupported: METH-PN-1, RPC-4 — a door without push notifications
// answers the four config methods -32003.
func pushUnsupported(ctx context.Context, s *suite) error {
	if s.card.Capabilities.PushNotifications {
		return skipf("the card declares pushNotifications true")
	}
	params := map[string]map[string]any{
		a2a.MethodCreateTaskPushNotificationConfig: {"taskId": unknownTaskID, "url": "https://example.com/push"},
		a2a.MethodGetTaskPushNotificationConfig:    {"taskId": unknownTaskID, "id": "conformance"},
		a2a.MethodListTaskPushNotificationConfigs:  {"taskId": unknownTaskID},
		a2a.MethodDeleteTaskPushNotificationConfig: {"taskId": unknownTaskID, "id": "conformance"},
	}
	for _, m := range a2a.PushNotificationMethods {
		a, err := s.call(ctx, m, params[m], nil)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		if err := s.expectA2A(a, -32003, "PUSH_NOTIFICATION_NOT_SUPPORTED", map[string]string{}); err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
	}
	return nil
}
