// Package tasktable is a session's task table: acceptance (door.md TASK-7), lanes
// (capsule.md LOOP-4), states and transitions (TASK-2, TASK-3), visibility per
// caller (AUTH-6), history, listing with pages (METH-LT), cancel (METH-CT),
// subscriptions for A2A streams (SSE-1..5) and the stream/watch frame buffer
// (SSE-6..9). The door answers the wire from it; the runtime takes the next
// task from it with Next and reports through the Run it gets.
//
// One Registry serves one session. All methods are safe for concurrent use.
package tasktable

import (
	"errors"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// Mode is lifecycle.task_acceptance.
type Mode string

// The acceptance modes (door.md TASK-7).
const (
	ModeNone   Mode = "none"
	ModeSingle Mode = "single"
	ModeQueue  Mode = "queue"
)

// Caller is who asks, as the door's credential check admitted it.
type Caller struct {
	// Credential is the door credential's name: "operator", a declared
	// credential, "member:<name>", "launcher"; "" on a public door and for the
	// runtime's own submissions.
	Credential string
	// Member is the calling member for a member token, else "". A member sees
	// only the tasks it started (door.md AUTH-6).
	Member string
}

// Provenance is where a task came from (door.md PEER-4, capsule.md SES-4, tools.md SHELL-3).
type Provenance struct {
	Origin      a2a.Origin
	Trust       a2a.Trust
	Source      string // "a2a" (the door), "task_md" (the launch task), "detached_shell" (a completion task)
	TraceParent string // the caller's W3C traceparent header, "" when absent or invalid (OTEL-1)
	TraceState  string // its tracestate, "" when none
}

// Config configures a Registry.
type Config struct {
	Acceptance Mode
	QueueDepth int              // ModeQueue: tasks waiting beyond the running one (≥ 1)
	Now        func() time.Time // nil: time.Now
	// Notify, when set, is called synchronously and in order for every event
	// the runtime records in its trace. It must not call back into the Registry.
	Notify func(Event)
}

// EventKind tells what an Event reports.
type EventKind int

// The events a Registry reports through Config.Notify.
const (
	// EventReceived: a new task was accepted and stored SUBMITTED (a2a_task_received).
	EventReceived EventKind = iota + 1
	// EventRejected: a new task was refused and not stored; Cause is "busy"
	// (single), "queue_full" (queue) or "not_accepting" (closing) (task_rejected).
	EventRejected
	// EventCanceledQueued: a SUBMITTED task was canceled before it started
	// (task_canceled, phase "queued").
	EventCanceledQueued
	// EventRejectedQueued: Close rejected a SUBMITTED task (task_rejected, cause "session_ended").
	EventRejectedQueued
)

// Event is one thing the runtime's trace records about the table.
type Event struct {
	Kind      EventKind
	Task      a2a.Task // snapshot after the change
	Prov      Provenance
	Caller    Caller
	MessageID string // the message that started the task
	Cause     string // EventRejected, EventRejectedQueued; "CancelTask" etc. for EventCanceledQueued
}

// Outcome is how a run ended (Run.Finish).
type Outcome struct {
	State    a2a.TaskState // TaskStateCompleted, TaskStateFailed or TaskStateCanceled
	Response string        // COMPLETED: the text of the "response" artifact
	Message  string        // the final status text (capsule.md SES-5), "" when none
	Murmur   *a2a.MurmurTaskMetadata
}

// SendRequest is a SendMessage or SendStreamingMessage the door accepted.
type SendRequest struct {
	Caller  Caller
	Prov    Provenance
	Message a2a.Message
	// Subscribe asks for a Subscription opened atomically with the send, so a
	// stream or a blocking SendMessage misses no event.
	Subscribe bool
	// HistoryLength is configuration.historyLength (door.md TASK-4).
	HistoryLength *int
}

// ErrClosed is returned by Next once the session is closing and nothing is left to run.
var ErrClosed = errors.New("task registry closed")

// Handler-facing methods (door side) and runtime-facing methods (Next, Run,
// Close, Frame, CloseFrames) are implemented in registry.go, run.go, list.go,
// subscribe.go and watch.go.
