package conformance

import (
	"context"
	"fmt"

	"github.com/murmur-go/mur/a2a"
)

// sendBlocking: METH-SM-4 — without returnImmediately the answer waits for a
// terminal or interrupted state (A2A SendMessageConfiguration).
func sendBlocking(ctx context.Context, s *suite) error {
	_, err := s.endedTask(ctx)
	return err
}

// sendReturnImmediately: METH-SM-3, METH-SM-4 — the accepted task at once,
// in the context the message named.
func sendReturnImmediately(ctx context.Context, s *suite) error {
	ctxID := "ctx-conformance-" + a2a.NewID("")
	p := s.sendParams(s.cfg.TaskText, true)
	p["message"].(map[string]any)["contextId"] = ctxID
	t, err := s.sendTask(ctx, p, nil)
	if err != nil {
		return err
	}
	if string(t.ContextID) != ctxID {
		return failf("task contextId %q, want the message's %q", t.ContextID, ctxID)
	}
	s.ctxTask = t
	return nil
}

// sendInvalidParams: METH-SM-1, METH-SM-2 — each refused -32602, and none
// starts a task.
func sendInvalidParams(ctx context.Context, s *suite) error {
	if !s.serves(a2a.MethodSendMessage) {
		return skipf("the door serves no SendMessage (its door extension does not list it)")
	}
	before, err := s.listTotal(ctx)
	if err != nil {
		return err
	}
	msg := func(edit func(m map[string]any)) map[string]any {
		m := message(s.cfg.TaskText)
		edit(m)
		return map[string]any{"message": m}
	}
	cases := map[string]any{
		"no message":       map[string]any{},
		"no messageId":     msg(func(m map[string]any) { delete(m, "messageId") }),
		"no parts":         msg(func(m map[string]any) { m["parts"] = []any{} }),
		"a part of two":    msg(func(m map[string]any) { m["parts"] = []any{map[string]any{"text": "a", "data": map[string]any{}}} }),
		"message a string": map[string]any{"message": "hello"},
	}
	if s.murmur {
		cases["an empty part"] = msg(func(m map[string]any) { m["parts"] = []any{map[string]any{}} })
		cases["role user (0.3 spelling)"] = msg(func(m map[string]any) { m["role"] = "user" })
		cases["role ROLE_AGENT"] = msg(func(m map[string]any) { m["role"] = "ROLE_AGENT" })
		cases["a bare message as params"] = message(s.cfg.TaskText)
		cases["a taskId number"] = msg(func(m map[string]any) { m["taskId"] = 7 })
		refs := make([]any, 17)
		for i := range refs {
			refs[i] = fmt.Sprintf("tsk_%032x", i)
		}
		cases["17 referenceTaskIds"] = msg(func(m map[string]any) { m["referenceTaskIds"] = refs })
	}
	for _, name := range sortedKeys(cases) {
		a, err := s.call(ctx, a2a.MethodSendMessage, cases[name], nil)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := s.expectStandard(a, -32602, ""); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	after, err := s.listTotal(ctx)
	if err != nil {
		return err
	}
	if after != before {
		return failf("ListTasks totalSize went from %d to %d: a refused message started a task (METH-SM-2)", before, after)
	}
	return nil
}

// sendUnknownTask: METH-SM-3, RPC-4.
func sendUnknownTask(ctx context.Context, s *suite) error {
	if !s.serves(a2a.MethodSendMessage) {
		return skipf("the door serves no SendMessage (its door extension does not list it)")
	}
	m := message(s.cfg.TaskText)
	m["taskId"] = unknownTaskID
	a, err := s.call(ctx, a2a.MethodSendMessage, map[string]any{"message": m}, nil)
	if err != nil {
		return err
	}
	return s.expectA2A(a, -32001, "TASK_NOT_FOUND", map[string]string{"taskId": unknownTaskID})
}

// sendEndedTask: METH-SM-3 — an ended task takes no more messages.
func sendEndedTask(ctx context.Context, s *suite) error {
	t, err := s.endedTask(ctx)
	if err != nil {
		return needs("an ended task", err)
	}
	m := message(s.cfg.TaskText)
	m["taskId"], m["contextId"] = string(t.ID), string(t.ContextID)
	a, err := s.call(ctx, a2a.MethodSendMessage, map[string]any{"message": m}, nil)
	if err != nil {
		return err
	}
	return s.expectA2A(a, -32004, "UNSUPPORTED_OPERATION", map[string]string{"taskId": string(t.ID), "state": string(t.Status.State)})
}

// sendContinue: METH-SM-3, A2A §3.1.1 (multi-turn) — a message naming a
// task that waits for input (TASK_STATE_INPUT_REQUIRED) continues it: the
// door answers the same task, not an error, and its history then holds the
// reply. On a murmur door the task takes one reply (input.md INP-6): a
// second message naming it is -32004. A door whose task never stops for
// input makes the check skip.
func sendContinue(ctx context.Context, s *suite) error {
	t, err := s.sendTask(ctx, s.sendParams(s.cfg.TaskText, false), nil)
	if err != nil {
		return err
	}
	if t.Status.State != a2a.TaskStateInputRequired {
		return skipf("the task ended %s without asking for input (a door that parks its tasks, or a --task-text that makes it ask, runs this check)", t.Status.State)
	}
	reply := func(text string) map[string]any {
		m := message(text)
		m["taskId"], m["contextId"] = string(t.ID), string(t.ContextID)
		return map[string]any{"message": m, "configuration": map[string]any{"returnImmediately": true}}
	}
	p := reply(s.cfg.TaskText)
	cont, err := s.sendTask(ctx, p, nil)
	if err != nil {
		return fmt.Errorf("the reply: %w", err)
	}
	if cont.ID != t.ID || cont.ContextID != t.ContextID {
		return failf("the reply answered task %s in context %s, want task %s in %s", cont.ID, cont.ContextID, t.ID, t.ContextID)
	}
	if s.murmur && cont.Status.State != a2a.TaskStateWorking && !cont.Status.State.Terminal() {
		return failf("the reply answered the task in %s, want it WORKING again (METH-SM-3)", cont.Status.State)
	}
	got, err := s.getTask(ctx, t.ID, map[string]any{"historyLength": 10})
	if err != nil {
		return err
	}
	id := p["message"].(map[string]any)["messageId"]
	found := false
	for _, m := range got.History {
		found = found || m.MessageID == id
	}
	if !found {
		return failf("the task's history (historyLength 10) lacks the reply %s (TASK-4)", id)
	}
	if !s.murmur {
		return nil
	}
	if got.Status.State == a2a.TaskStateInputRequired {
		return nil // it asked again: a second question takes a second reply
	}
	a, err := s.call(ctx, a2a.MethodSendMessage, reply("a second reply"), nil)
	if err != nil {
		return err
	}
	if a.err == nil || *a.err.Code != -32004 {
		if now, err := s.getTask(ctx, t.ID, nil); err == nil && now.Status.State == a2a.TaskStateInputRequired {
			return nil // it asked again between the two reads
		}
	}
	return s.expectA2A(a, -32004, "UNSUPPORTED_OPERATION", nil)
}

// sendContentType: METH-SM-2 step 6, RPC-4 — a murmur door reads text and
// data parts only.
func sendContentType(ctx context.Context, s *suite) error {
	if !s.murmur || !s.serves(a2a.MethodSendMessage) {
		return skipf("only a murmur door that serves SendMessage refuses raw and url parts (METH-SM-2)")
	}
	cases := []struct {
		parts []any
		md    map[string]string
	}{
		{[]any{map[string]any{"url": "https://example.com/a.png"}}, map[string]string{"partIndex": "0"}},
		{[]any{map[string]any{"text": "see"}, map[string]any{"raw": "aGk=", "mediaType": "image/png"}},
			map[string]string{"partIndex": "1", "mediaType": "image/png"}},
	}
	for _, c := range cases {
		m := message(s.cfg.TaskText)
		m["parts"] = c.parts
		a, err := s.call(ctx, a2a.MethodSendMessage, map[string]any{"message": m}, nil)
		if err != nil {
			return err
		}
		if err := s.expectA2A(a, -32005, "CONTENT_TYPE_NOT_SUPPORTED", c.md); err != nil {
			return fmt.Errorf("parts %s: %w", jsonOf(c.parts), err)
		}
	}
	return nil
}
