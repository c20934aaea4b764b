package a2a

import (
	"encoding/json"
	"time"
)

// TaskID names a task: "tsk_" + 32 lowercase hex (door.md, identifier formats).
type TaskID string

// ContextID names a context: "ctx_" + 32 lowercase hex, or a client's own value.
type ContextID string

// TaskState is a task's A2A state, spelled as its ProtoJSON enum name.
type TaskState string

// The task states of A2A v1.0 (door.md TASK-2).
const (
	TaskStateUnspecified   TaskState = "TASK_STATE_UNSPECIFIED"
	TaskStateSubmitted     TaskState = "TASK_STATE_SUBMITTED"
	TaskStateWorking       TaskState = "TASK_STATE_WORKING"
	TaskStateInputRequired TaskState = "TASK_STATE_INPUT_REQUIRED"
	TaskStateCompleted     TaskState = "TASK_STATE_COMPLETED"
	TaskStateFailed        TaskState = "TASK_STATE_FAILED"
	TaskStateCanceled      TaskState = "TASK_STATE_CANCELED"
	TaskStateRejected      TaskState = "TASK_STATE_REJECTED"
	TaskStateAuthRequired  TaskState = "TASK_STATE_AUTH_REQUIRED"
)

// Terminal reports whether s is a terminal state (COMPLETED, FAILED, CANCELED, REJECTED).
func (s TaskState) Terminal() bool {
	switch s {
	case TaskStateCompleted, TaskStateFailed, TaskStateCanceled, TaskStateRejected:
		return true
	}
	return false
}

// Interrupted reports whether s is an interrupted state (INPUT_REQUIRED, AUTH_REQUIRED).
func (s TaskState) Interrupted() bool {
	return s == TaskStateInputRequired || s == TaskStateAuthRequired
}

// Valid reports whether s is one of the nine names A2A v1.0 defines.
func (s TaskState) Valid() bool {
	switch s {
	case TaskStateUnspecified, TaskStateSubmitted, TaskStateWorking, TaskStateInputRequired,
		TaskStateCompleted, TaskStateFailed, TaskStateCanceled, TaskStateRejected, TaskStateAuthRequired:
		return true
	}
	return false
}

// MurmurWord is the state's murmur word, used only on stream/watch frames (door.md TASK-2).
func (s TaskState) MurmurWord() string {
	switch s {
	case TaskStateSubmitted:
		return "submitted"
	case TaskStateWorking:
		return "working"
	case TaskStateInputRequired:
		return "input-required"
	case TaskStateCompleted:
		return "completed"
	case TaskStateFailed:
		return "failed"
	case TaskStateCanceled:
		return "canceled"
	case TaskStateRejected:
		return "rejected"
	}
	return "unknown"
}

// Role is a message sender's role, spelled as its ProtoJSON enum name.
type Role string

// The roles of A2A v1.0.
const (
	RoleUnspecified Role = "ROLE_UNSPECIFIED"
	RoleUser        Role = "ROLE_USER"
	RoleAgent       Role = "ROLE_AGENT"
)

// Media types the door writes on parts (door.md TASK-4).
const (
	MediaTypeText = "text/plain"
	MediaTypeJSON = "application/json"
)

// Task is an A2A v1.0 Task in ProtoJSON form (door.md TASK-4).
type Task struct {
	ID        TaskID     `json:"id"`
	ContextID ContextID  `json:"contextId"`
	Status    TaskStatus `json:"status"`
	Artifacts []Artifact `json:"artifacts,omitempty"`
	History   []Message  `json:"history,omitempty"`
	// Metadata holds "murmur" (MurmurTaskMetadata) on the door's tasks; a client
	// decodes whatever a door sent. Omitted when empty.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Artifact returns the artifact named name, or nil.
func (t *Task) Artifact(name string) *Artifact {
	for i := range t.Artifacts {
		if t.Artifacts[i].Name == name || t.Artifacts[i].ArtifactID == name {
			return &t.Artifacts[i]
		}
	}
	return nil
}

// TaskStatus is a task's current state, when it was reached and what it said.
type TaskStatus struct {
	State TaskState `json:"state"`
	// Timestamp is RFC 3339 UTC with milliseconds (FormatTime).
	Timestamp string   `json:"timestamp,omitempty"`
	Message   *Message `json:"message,omitempty"`
}

// FormatTime renders t the way every status timestamp is written: RFC 3339 UTC with milliseconds.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// Message is one A2A message.
type Message struct {
	MessageID        string         `json:"messageId"`
	ContextID        ContextID      `json:"contextId,omitempty"`
	TaskID           TaskID         `json:"taskId,omitempty"`
	Role             Role           `json:"role"`
	Parts            []Part         `json:"parts"`
	Metadata         map[string]any `json:"metadata,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	ReferenceTaskIDs []TaskID       `json:"referenceTaskIds,omitempty"`
}

// Part is one piece of message or artifact content: exactly one of Text, Raw,
// URL or Data is set. Data keeps its raw JSON so that `"data": null` is seen.
type Part struct {
	Text      *string         `json:"text,omitempty"`
	Raw       []byte          `json:"raw,omitempty"`
	URL       *string         `json:"url,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Metadata  map[string]any  `json:"metadata,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
}

// TextPart returns a text part with media type text/plain, as the door writes them.
func TextPart(s string) Part {
	return Part{Text: &s, MediaType: MediaTypeText}
}

// DataPart returns a data part with media type application/json.
func DataPart(v json.RawMessage) Part {
	return Part{Data: v, MediaType: MediaTypeJSON}
}

// Artifact is a task output (door.md TASK-4: artifactId equals name).
type Artifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []Part         `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Extensions  []string       `json:"extensions,omitempty"`
}

// Text joins the text parts of an artifact or message with "\n".
func Text(parts []Part) string {
	var s string
	first := true
	for _, p := range parts {
		if p.Text == nil {
			continue
		}
		if !first {
			s += "\n"
		}
		s += *p.Text
		first = false
	}
	return s
}

// StreamResponse is one event of an A2A stream: exactly one field is set (door.md SSE-2).
type StreamResponse struct {
	Task           *Task                    `json:"task,omitempty"`
	Message        *Message                 `json:"message,omitempty"`
	StatusUpdate   *TaskStatusUpdateEvent   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *TaskArtifactUpdateEvent `json:"artifactUpdate,omitempty"`
}

// TaskStatusUpdateEvent reports a task's new status.
type TaskStatusUpdateEvent struct {
	TaskID    TaskID         `json:"taskId"`
	ContextID ContextID      `json:"contextId"`
	Status    TaskStatus     `json:"status"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// TaskArtifactUpdateEvent reports an artifact of a task.
type TaskArtifactUpdateEvent struct {
	TaskID    TaskID         `json:"taskId"`
	ContextID ContextID      `json:"contextId"`
	Artifact  Artifact       `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}
