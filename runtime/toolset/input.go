package toolset

import (
	"context"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/tool/input"
)

// Asking is the running task request-input parks.
type Asking struct {
	Run *tasktable.Run
	// Record writes the conversation record, fsynced, before the task
	// parks: a session killed while the task waits leaves what a resume
	// needs to ask again.
	Record func()
}

// requestInput builds the built-in murmur-tool-request-input when
// artifacts[] declares it (input.md INP-1), nil otherwise.
func (c Config) requestInput() tool.Artifact {
	m := c.Manifest
	a, ok := m.RequestInput()
	if !ok {
		return nil
	}
	var timeout time.Duration
	if n := m.Lifecycle.InputTimeoutSecs; n != nil {
		timeout = time.Duration(*n) * time.Second
	}
	t, err := input.New(input.Config{Ref: a.Ref, Version: a.Version, Timeout: timeout, Now: c.Now,
		Door: func(cc *tool.CallContext) input.Door {
			if task, ok := c.AskingTask(cc.TaskID); ok {
				return inputDoor{task, c.ReplyText}
			}
			return nil
		}})
	if err != nil {
		return nil // only a missing Door fails, and it is set
	}
	return t
}

// inputDoor adapts the task table's run to request-input's Door.
type inputDoor struct {
	task Asking
	text func(a2a.Message) string
}

// Ask parks the task on its question, once the conversation record has
// taken the turn that asks.
func (d inputDoor) Ask(prompt string) bool {
	d.task.Record()
	return d.task.Run.AskInput(prompt)
}

func (d inputDoor) Wait(ctx context.Context) (input.Reply, error) {
	select {
	case r := <-d.task.Run.Replies():
		return d.reply(r), nil
	case <-ctx.Done():
		return input.Reply{}, ctx.Err()
	}
}

func (d inputDoor) Withdraw() (input.Reply, bool) {
	r, ok := d.task.Run.Withdraw()
	if !ok {
		return input.Reply{}, false
	}
	return d.reply(r), true
}

// reply is what request-input reads of a reply (INP-5, INP-10).
func (d inputDoor) reply(r tasktable.Reply) input.Reply {
	return input.Reply{MessageID: r.Message.MessageID, Text: d.text(r.Message), Origin: string(r.Prov.Origin),
		Trust: string(r.Prov.Trust), CallerMember: r.Caller.Member}
}
