package view

import (
	"encoding/json"
	"fmt"
)

// The trace records the view reads (capsule.md §6; tools.md CALL-11, RND-2;
// formations.md TRC-1..3), each declared once with only the fields it needs.
// Readers skip unknown types (capsule.md §6). TODO(issue 8): read the typed
// records of runtime/trace once that package exports them.

// envelope starts every trace line (TRACE-1).
type envelope struct {
	EventType string `json:"event_type"`
	SessionID string `json:"session_id"`
	Timestamp int64  `json:"timestamp"` // Unix ms
}

type sessionStart struct {
	CapsuleName      string   `json:"capsule_name"`
	CapsuleVersion   string   `json:"capsule_version"`
	FormationID      string   `json:"formation_id"`
	FormationMember  string   `json:"formation_member"`
	FormationCallees []string `json:"formation_callees"`
}

type sessionEnd struct {
	ExitStatus string `json:"exit_status"`
}

type taskReceived struct { // a2a_task_received
	TaskID       string `json:"task_id"`
	MessageID    string `json:"message_id"`
	CallerMember string `json:"caller_member"`
}

type taskStart struct {
	TaskID       string `json:"task_id"`
	Source       string `json:"source"`
	Origin       string `json:"origin"`
	CallerMember string `json:"caller_member"`
}

type inference struct {
	Turn         int64   `json:"turn"`
	TaskID       string  `json:"task_id"`
	Choice       string  `json:"choice"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Decision     string  `json:"decision"`
	StopReason   string  `json:"stop_reason"`
	ToolName     *string `json:"tool_name"`
	InputActual  *int64  `json:"input_tokens_actual"`
	OutputActual *int64  `json:"output_tokens_actual"`
}

type toolCall struct {
	Turn       int64  `json:"turn"`
	TaskID     string `json:"task_id"`
	ToolName   string `json:"tool_name"`
	DurationMS int64  `json:"duration_ms"`
	Status     string `json:"status"`
	Summary    string `json:"summary"`
}

type shell struct {
	Turn       int64  `json:"turn"`
	TaskID     string `json:"task_id"`
	Binary     string `json:"binary"`
	ExitCode   int64  `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
}

type memberCallBusy struct {
	TaskID   string `json:"task_id"`
	CallID   string `json:"call_id"`
	Member   string `json:"member"`
	Offer    int    `json:"offer"`
	WaitedMS int64  `json:"waited_ms"`
	Message  string `json:"message"`
}

type memberCallStart struct {
	TaskID       string `json:"task_id"`
	CallID       string `json:"call_id"`
	Member       string `json:"member"`
	MemberTaskID string `json:"member_task_id"`
}

type memberCall struct {
	TaskID       string `json:"task_id"`
	CallID       string `json:"call_id"`
	Member       string `json:"member"`
	MemberTaskID string `json:"member_task_id"`
	Status       string `json:"status"`
	DurationMS   int64  `json:"duration_ms"`
	Delivered    bool   `json:"delivered"`
}

type taskContinued struct {
	TaskID             string   `json:"task_id"`
	ContinuationNumber int      `json:"continuation_number"`
	MemberCalls        []string `json:"member_calls"`
	WaitedMS           int64    `json:"waited_ms"`
}

type taskFailed struct {
	TaskID string `json:"task_id"`
	Turn   int64  `json:"turn"`
	Cause  string `json:"cause"`
	Reason string `json:"reason"`
}

type taskCanceled struct {
	TaskID string `json:"task_id"`
	Phase  string `json:"phase"`
}

type taskRejected struct {
	TaskID string `json:"task_id"`
	Cause  string `json:"cause"`
}

type taskEnd struct {
	TaskID       string `json:"task_id"`
	ExitStatus   string `json:"exit_status"`
	DurationMS   int64  `json:"duration_ms"`
	Turns        int64  `json:"turns"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
}

type inputRequest struct { // input.md INP-10
	TaskID string `json:"task_id"`
}

// record is one decoded trace line: its envelope, its typed payload (nil for
// a type the view does not read), and where it sits in its file.
type record struct {
	envelope
	body any
	off  int64 // byte offset of the line in trace.jsonl
	n    int   // its length, without the newline
}

// taskID returns the task a record belongs to, or "".
func (r *record) taskID() string {
	switch b := r.body.(type) {
	case *taskReceived:
		return b.TaskID
	case *taskStart:
		return b.TaskID
	case *inference:
		return b.TaskID
	case *toolCall:
		return b.TaskID
	case *shell:
		return b.TaskID
	case *memberCallBusy:
		return b.TaskID
	case *memberCallStart:
		return b.TaskID
	case *memberCall:
		return b.TaskID
	case *taskContinued:
		return b.TaskID
	case *taskFailed:
		return b.TaskID
	case *taskCanceled:
		return b.TaskID
	case *taskRejected:
		return b.TaskID
	case *taskEnd:
		return b.TaskID
	case *inputRequest:
		return b.TaskID
	}
	return ""
}

// newBody returns an empty payload for a record type the view reads, or nil.
func newBody(eventType string) any {
	switch eventType {
	case "session_start":
		return new(sessionStart)
	case "session_end":
		return new(sessionEnd)
	case "a2a_task_received":
		return new(taskReceived)
	case "task_start":
		return new(taskStart)
	case "inference":
		return new(inference)
	case "tool_call":
		return new(toolCall)
	case "shell":
		return new(shell)
	case "member_call_busy":
		return new(memberCallBusy)
	case "member_call_start":
		return new(memberCallStart)
	case "member_call":
		return new(memberCall)
	case "task_continued":
		return new(taskContinued)
	case "task_failed":
		return new(taskFailed)
	case "task_canceled":
		return new(taskCanceled)
	case "task_rejected":
		return new(taskRejected)
	case "task_end":
		return new(taskEnd)
	case "input_request", "input_reply":
		return new(inputRequest)
	}
	return nil
}

// decodeRecord decodes one trace line found at off. A line that is not a
// JSON object with a string event_type is an error; a known type whose
// fields have the wrong JSON types is an error too.
func decodeRecord(line []byte, off int64) (*record, error) {
	r := &record{off: off, n: len(line)}
	if err := json.Unmarshal(line, &r.envelope); err != nil {
		return nil, fmt.Errorf("offset %d: %w", off, err)
	}
	if r.EventType == "" {
		return nil, fmt.Errorf("offset %d: no event_type", off)
	}
	if b := newBody(r.EventType); b != nil {
		if err := json.Unmarshal(line, b); err != nil {
			return nil, fmt.Errorf("offset %d: %s: %w", off, r.EventType, err)
		}
		r.body = b
	}
	return r, nil
}
