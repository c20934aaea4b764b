package view

import (
	"context"
	"encoding/json"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
)

// Reconnection waits of a watcher whose stream dropped.
const (
	watchRetryFirst = 100 * time.Millisecond
	watchRetryMax   = 2 * time.Second
)

// follow reads session s's stream/watch at url with the operator token (door.md
// SSE-6..9; the token never leaves this process) until ctx ends or the door
// writes capsule-closed, reconnecting after the last frame id it saw when
// the connection drops. Status frames move the session's tasks.
func (m *model) follow(ctx context.Context, s *session, url, token string) {
	c, err := client.New(client.Config{BaseURL: url, Token: token, RequestTimeout: 5 * time.Second})
	if err != nil {
		return // a running record's url is always http://127.0.0.1:<port>; nothing to follow otherwise
	}
	var last uint64
	wait := watchRetryFirst
	for {
		closed := false
		for f, err := range c.Watch(ctx, last) {
			if err != nil {
				break
			}
			wait = watchRetryFirst
			if f.ID > 0 {
				last = f.ID
			}
			switch f.Event {
			case a2a.FrameStatus:
				m.applyWatch(s, f.Data, time.Now().UnixMilli())
			case a2a.FrameCapsuleClosed:
				closed = true
			}
		}
		if closed || ctx.Err() != nil {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, watchRetryMax)
	}
}

// applyWatch folds one status frame into the model: the task's A2A state,
// and its status message (e.g. "waiting on call-member: 1 call(s)
// outstanding", tools.md RND-1) on the task and its member.
func (m *model) applyWatch(s *session, data json.RawMessage, now int64) {
	var f a2a.StatusFrame
	if json.Unmarshal(data, &f) != nil || f.ID == "" || f.Status.State == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !s.started {
		return // the member is not named yet; its trace will show the task
	}
	t := m.task(s.name, string(f.ID), s.trace, now)
	m.setTaskState(t, f.Status.State, now, "")
	if terminal(t.State) || f.Status.Message == nil {
		return
	}
	t.Status = *f.Status.Message
	m.member(s.name).Status = t.Status
	m.touchMember(s.name)
}
