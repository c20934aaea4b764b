package session

import (
	"github.com/murmur-go/mur/internal/task"
	"github.com/murmur-go/mur/runtime/trace"
)

// notify writes the records of the task table's own events (ARCHITECTURE.md
// "Trace hooks"): a2a_task_received, task_rejected, task_canceled (queued).
// The registry calls it synchronously, in order, under its lock.
func (s *Session) notify(ev task.Event) {
	id := string(ev.Task.ID)
	switch ev.Kind {
	case task.EventReceived:
		fields := []trace.F{
			{K: "task_id", V: id}, {K: "context_id", V: string(ev.Task.ContextID)},
			{K: "message_id", V: ev.MessageID}, {K: "traceparent_from_caller", V: orNull(ev.Prov.TraceParent)},
		}
		if ev.Caller.Member != "" {
			fields = append(fields, trace.F{K: "caller_member", V: ev.Caller.Member}) // TRC-3
		}
		_, _ = s.tr.Write("a2a_task_received", fields...)
	case task.EventRejected, task.EventRejectedQueued:
		_, _ = s.tr.Write("task_rejected", trace.F{K: "task_id", V: id}, trace.F{K: "cause", V: ev.Cause}, trace.F{K: "source", V: ev.Prov.Source})
	case task.EventCanceledQueued:
		_, _ = s.tr.Write("task_canceled", trace.F{K: "task_id", V: id}, trace.F{K: "turn", V: nil},
			trace.F{K: "phase", V: "queued"}, trace.F{K: "detached_work_ids", V: []string{}}, trace.F{K: "delegation_ids", V: []string{}})
	}
}

// orNull is s, or nil (JSON null) when empty.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}
