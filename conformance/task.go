package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// message is a user message with one text part and a fresh messageId.
func message(text string) map[string]any {
	return map[string]any{
		"messageId": a2a.NewID("conformance-"),
		"role":      string(a2a.RoleUser),
		"parts":     []any{map[string]any{"text": text}},
	}
}

// sendParams is SendMessage's params for text; immediate sets returnImmediately.
func (s *suite) sendParams(text string, immediate bool) map[string]any {
	p := map[string]any{"message": message(text)}
	if immediate {
		p["configuration"] = map[string]any{"returnImmediately": true}
	}
	return p
}

// needs turns the error of a task a check depends on into a skip.
func needs(what string, err error) error {
	return skipf("needs %s: %v", what, err)
}

// statusText is the text of a task's status message, "" when none.
func statusText(t *a2a.Task) string {
	if t.Status.Message == nil {
		return ""
	}
	return a2a.Text(t.Status.Message.Parts)
}

// sendTask sends SendMessage and returns the task it answered, checked
// against the Task shape (TASK-1, TASK-4). A door that does not serve
// SendMessage, answers a message instead of a task, or rejects the task
// makes the caller skip.
func (s *suite) sendTask(ctx context.Context, params map[string]any, h hdr) (*a2a.Task, error) {
	a, err := s.call(ctx, a2a.MethodSendMessage, params, h)
	if err != nil {
		return nil, err
	}
	if a.err != nil && *a.err.Code == -32601 && !s.serves(a2a.MethodSendMessage) {
		return nil, skipf("the door serves no SendMessage (its door extension does not list it)")
	}
	res, err := a.ok()
	if err != nil {
		return nil, fmt.Errorf("SendMessage: %w", err)
	}
	if err := validate(res, sendResponseSpec, "result"); err != nil {
		return nil, err
	}
	var r a2a.SendMessageResponse
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	if r.Task == nil {
		return nil, skipf("the door answered SendMessage with a message, not a task")
	}
	raw, _ := json.Marshal(r.Task)
	if err := s.checkTask(raw, r.Task); err != nil {
		return nil, err
	}
	if r.Task.Status.State == a2a.TaskStateRejected {
		return nil, skipf("the door rejected the task: %q", statusText(r.Task))
	}
	s.accepted = true
	s.track(r.Task)
	return r.Task, nil
}

// checkTask checks what every answered task holds (TASK-4): an id, a
// context id, a state a door writes; on a murmur door also a tsk_ id, a
// status timestamp, artifacts named as their ids, no history unasked.
func (s *suite) checkTask(raw json.RawMessage, t *a2a.Task) error {
	if err := validate(raw, taskSpec, "task"); err != nil {
		return err
	}
	if t.ID == "" || t.ContextID == "" {
		return failf("task id %q contextId %q, want both set", t.ID, t.ContextID)
	}
	if t.Status.State == a2a.TaskStateUnspecified {
		return failf("task %s in TASK_STATE_UNSPECIFIED", t.ID)
	}
	if !s.murmur {
		return nil
	}
	if h, ok := strings.CutPrefix(string(t.ID), a2a.PrefixTask); !ok || !a2a.IsHex32(h) {
		return failf("task id %q, want tsk_<32 hex>", t.ID)
	}
	if t.Status.Timestamp == "" {
		return failf("task %s has no status.timestamp (TASK-4)", t.ID)
	}
	if t.Status.State == a2a.TaskStateAuthRequired {
		return failf("task %s in TASK_STATE_AUTH_REQUIRED, which a murmur door never writes (TASK-2)", t.ID)
	}
	for _, art := range t.Artifacts {
		if art.ArtifactID != art.Name {
			return failf("artifact %q named %q, want artifactId equal to name (TASK-4)", art.ArtifactID, art.Name)
		}
	}
	return nil
}

// endedTask returns a task the door holds in a terminal state: the blocking
// SendMessage's task, canceled first if it stopped for input. Made once.
func (s *suite) endedTask(ctx context.Context) (*a2a.Task, error) {
	if s.ended == nil && s.endedErr == nil {
		s.ended, s.endedErr = s.makeEnded(ctx)
	}
	return s.ended, s.endedErr
}

func (s *suite) makeEnded(ctx context.Context) (*a2a.Task, error) {
	t, err := s.sendTask(ctx, s.sendParams(s.cfg.TaskText, false), nil)
	if err != nil {
		return nil, err
	}
	switch {
	case t.Status.State.Terminal():
		return t, nil
	case t.Status.State.Interrupted():
		c, err := s.cancel(ctx, t.ID)
		if err != nil {
			return nil, fmt.Errorf("canceling the interrupted task: %w", err)
		}
		if c.Status.State != a2a.TaskStateCanceled {
			return nil, failf("CancelTask on an interrupted task answered %s, want TASK_STATE_CANCELED", c.Status.State)
		}
		return c, nil
	}
	return nil, failf("a blocking SendMessage answered the task in %s, want a terminal or interrupted state (METH-SM-4)", t.Status.State)
}

// liveTask starts a task the door should still hold when the next request
// arrives: SlowTaskText when configured (slow is then true), else TaskText.
// A task that ended at once makes the caller skip.
func (s *suite) liveTask(ctx context.Context) (t *a2a.Task, slow bool, err error) {
	text, slow := s.cfg.SlowTaskText, true
	if text == "" {
		text, slow = s.cfg.TaskText, false
	}
	t, err = s.sendTask(ctx, s.sendParams(text, true), nil)
	if err != nil {
		return nil, false, err
	}
	if t.Status.State.Terminal() {
		return nil, false, skipf("the task ended %s before the check could use it%s", t.Status.State, slowHint(slow))
	}
	return t, slow, nil
}

func slowHint(slow bool) string {
	if slow {
		return ""
	}
	return " (a slow task text, --slow-task-text or Config.SlowTaskText, gives the suite a task that stays live)"
}

// getTask reads a task with GetTask and checks its shape.
func (s *suite) getTask(ctx context.Context, id a2a.TaskID, params map[string]any) (*a2a.Task, error) {
	if params == nil {
		params = map[string]any{}
	}
	params["id"] = string(id)
	a, err := s.call(ctx, a2a.MethodGetTask, params, nil)
	if err != nil {
		return nil, err
	}
	return s.taskResult(a, "GetTask")
}

// cancel cancels a task with CancelTask and checks the answered task's shape.
func (s *suite) cancel(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	a, err := s.call(ctx, a2a.MethodCancelTask, map[string]any{"id": string(id)}, nil)
	if err != nil {
		return nil, err
	}
	return s.taskResult(a, "CancelTask")
}

func (s *suite) taskResult(a *rpcAnswer, method string) (*a2a.Task, error) {
	res, err := a.ok()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	var t a2a.Task
	if err := json.Unmarshal(res, &t); err != nil {
		return nil, failf("%s result: %v", method, err)
	}
	if err := s.checkTask(res, &t); err != nil {
		return nil, fmt.Errorf("%s result: %w", method, err)
	}
	return &t, nil
}

// listTotal returns ListTasks' totalSize.
func (s *suite) listTotal(ctx context.Context) (int, error) {
	r, err := s.list(ctx, map[string]any{})
	if err != nil {
		return 0, err
	}
	return r.TotalSize, nil
}

// list calls ListTasks and checks the answer's shape.
func (s *suite) list(ctx context.Context, params map[string]any) (*a2a.ListTasksResponse, error) {
	a, err := s.call(ctx, a2a.MethodListTasks, params, nil)
	if err != nil {
		return nil, err
	}
	res, err := a.ok()
	if err != nil {
		return nil, fmt.Errorf("ListTasks %s: %w", jsonOf(params), err)
	}
	if err := validate(res, listResponseSpec, "result"); err != nil {
		return nil, err
	}
	var r a2a.ListTasksResponse
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
