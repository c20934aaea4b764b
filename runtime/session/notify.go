package session

import (
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/trace"
)

// notify writes the records of the task table's own events (ARCHITECTURE.md
// "Trace hooks"): a2a_task_received, task_rejected, task_canceled (queued).
// The registry calls it synchronously, in order, under its lock.
func (s *Session) notify(ev tasktable.Event) {
	id := string(ev.Task.ID)
	switch ev.Kind {
	case tasktable.EventReceived:
		_, _ = s.tr.Write(trace.A2ATaskReceived{TaskID: id, ContextID: string(ev.Task.ContextID),
			MessageID: ev.MessageID, TraceparentFromCaller: orNull(ev.Prov.TraceParent),
			CallerMember: ev.Caller.Member}) // caller_member: TRC-3
	case tasktable.EventRejected, tasktable.EventRejectedQueued:
		_, _ = s.tr.Write(trace.TaskRejected{TaskID: id, Cause: ev.Cause, Source: ev.Prov.Source})
	case tasktable.EventCanceledQueued:
		_, _ = s.tr.Write(trace.TaskCanceled{TaskID: id, Phase: "queued", DetachedWorkIDs: []string{}, DelegationIDs: []string{}})
	}
}

// orNull is s, or nil (JSON null) when empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
