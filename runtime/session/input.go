package session

import (
	"context"
	"time"

	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/tool/input"
)

// requestInput builds the built-in murmur-tool-request-input when
// artifacts[] declares it (input.md INP-1), nil otherwise.
func (s *Session) requestInput() tool.Artifact {
	a, ok := s.m.RequestInput()
	if !ok {
		return nil
	}
	var timeout time.Duration
	if n := s.m.Lifecycle.InputTimeoutSecs; n != nil {
		timeout = time.Duration(*n) * time.Second
	}
	t, err := input.New(input.Config{Ref: a.Ref, Version: a.Version, Timeout: timeout, Now: s.now,
		Door: func(cc *tool.CallContext) input.Door {
			if cur := s.runningTask(); cur != nil && cur.id == cc.TaskID {
				return inputDoor{cur}
			}
			return nil
		}})
	if err != nil {
		return nil // only a missing Door fails, and it is set
	}
	return t
}

// inputDoor adapts the task table's run to request-input's Door.
type inputDoor struct{ t *taskRun }

// Ask parks the task on its question. The conversation record first takes
// the turn that asks, fsynced, so a session killed while the task waits
// leaves what a resume needs to ask again.
func (d inputDoor) Ask(prompt string) bool {
	d.t.recordMessages(true)
	return d.t.run.AskInput(prompt)
}

func (d inputDoor) Wait(ctx context.Context) (input.Reply, error) {
	select {
	case r := <-d.t.run.Replies():
		return reply(r), nil
	case <-ctx.Done():
		return input.Reply{}, ctx.Err()
	}
}

func (d inputDoor) Withdraw() (input.Reply, bool) {
	r, ok := d.t.run.Withdraw()
	if !ok {
		return input.Reply{}, false
	}
	return reply(r), true
}

// reply is what request-input reads of a reply (INP-5, INP-10).
func reply(r tasktable.Reply) input.Reply {
	return input.Reply{MessageID: r.Message.MessageID, Text: partsText(r.Message), Origin: string(r.Prov.Origin),
		Trust: string(r.Prov.Trust), CallerMember: r.Caller.Member}
}
