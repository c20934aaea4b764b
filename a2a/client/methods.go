package client

import (
	"context"
	"fmt"

	"github.com/murmur-go/mur/a2a"
)

// SendMessage sends a message (door.md METH-SM). The door holds the answer
// until the task is terminal or INPUT_REQUIRED unless
// req.Configuration.ReturnImmediately is set, which mur's own callers always
// set (spec README decision 5). The response holds a task (a mur door always
// answers one) or, from another vendor's door, possibly a message.
func (c *Client) SendMessage(ctx context.Context, req a2a.SendMessageRequest, opts ...CallOption) (*a2a.SendMessageResponse, error) {
	var resp a2a.SendMessageResponse
	if err := c.Call(ctx, a2a.MethodSendMessage, req, &resp, opts...); err != nil {
		return nil, err
	}
	if resp.Task == nil && resp.Message == nil {
		return nil, fmt.Errorf("%s: %w: result holds neither task nor message", a2a.MethodSendMessage, ErrBadResponse)
	}
	if resp.Task != nil {
		if err := checkTask(a2a.MethodSendMessage, resp.Task); err != nil {
			return nil, err
		}
	}
	return &resp, nil
}

// GetTask reads a task (door.md METH-GT).
func (c *Client) GetTask(ctx context.Context, req a2a.GetTaskRequest, opts ...CallOption) (*a2a.Task, error) {
	var t a2a.Task
	if err := c.Call(ctx, a2a.MethodGetTask, req, &t, opts...); err != nil {
		return nil, err
	}
	if err := checkTask(a2a.MethodGetTask, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// ListTasks lists one page of tasks (door.md METH-LT).
func (c *Client) ListTasks(ctx context.Context, req a2a.ListTasksRequest, opts ...CallOption) (*a2a.ListTasksResponse, error) {
	var r a2a.ListTasksResponse
	if err := c.Call(ctx, a2a.MethodListTasks, req, &r, opts...); err != nil {
		return nil, err
	}
	return &r, nil
}

// CancelTask cancels a live task and returns it (door.md METH-CT); an ended
// task is an *a2a.Error wrapping a2a.ErrTaskNotCancelable.
func (c *Client) CancelTask(ctx context.Context, req a2a.CancelTaskRequest, opts ...CallOption) (*a2a.Task, error) {
	var t a2a.Task
	if err := c.Call(ctx, a2a.MethodCancelTask, req, &t, opts...); err != nil {
		return nil, err
	}
	if err := checkTask(a2a.MethodCancelTask, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// GetExtendedAgentCard fetches the extended card (door.md METH-XC, CARD-7); the
// launcher's readiness probe calls it with the launcher token (formations.md
// READY-2). A public door answers a2a.ErrUnsupportedOperation.
func (c *Client) GetExtendedAgentCard(ctx context.Context, opts ...CallOption) (*a2a.AgentCard, error) {
	var card a2a.AgentCard
	if err := c.Call(ctx, a2a.MethodGetExtendedAgentCard, struct{}{}, &card, opts...); err != nil {
		return nil, err
	}
	return &card, nil
}

// StopSession calls the murmur method session/stop (door.md METH-STOP-1):
// every live task is canceled; the door stays up until its session ends.
func (c *Client) StopSession(ctx context.Context, opts ...CallOption) (*a2a.StopSessionResult, error) {
	var r a2a.StopSessionResult
	if err := c.Call(ctx, a2a.MethodSessionStop, struct{}{}, &r, opts...); err != nil {
		return nil, err
	}
	return &r, nil
}

// checkTask refuses a task result without an id or a state: whatever it
// decoded from, it is not a task.
func checkTask(method string, t *a2a.Task) error {
	if t.ID == "" || t.Status.State == "" {
		return fmt.Errorf("%s: %w: the task has no id or no status.state", method, ErrBadResponse)
	}
	return nil
}
