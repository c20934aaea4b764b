package view

import (
	"fmt"

	"github.com/murmur-go/mur/runtime/trace"
)

// record is one trace line as the view holds it: its header, its payload
// decoded into runtime/trace's record type (nil for a type this build does
// not write: readers skip those, capsule.md §6), and where it sits in its
// file, so a timeline can read it back.
type record struct {
	trace.Header
	body trace.Record
	off  int64 // byte offset of the line in trace.jsonl
	n    int   // its length, without the newline
}

// decodeRecord decodes one trace line found at off. A line that is not a
// record (not a JSON object with a string event_type), or a known type
// holding a field of the wrong JSON type, is an error.
func decodeRecord(line []byte, off int64) (*record, error) {
	l, err := trace.ParseLine(line)
	if err != nil {
		return nil, fmt.Errorf("offset %d: %w", off, err)
	}
	body, _, err := l.Record()
	if err != nil {
		return nil, fmt.Errorf("offset %d: %w", off, err)
	}
	return &record{Header: l.Header, body: body, off: off, n: len(line)}, nil
}

// taskID returns the task of a record the view shows on a task's
// timeline, or "".
func (r *record) taskID() string {
	switch b := r.body.(type) {
	case trace.A2ATaskReceived:
		return b.TaskID
	case trace.TaskStart:
		return b.TaskID
	case trace.Inference:
		return b.TaskID
	case trace.ToolCall:
		return b.TaskID
	case trace.Shell:
		return b.TaskID
	case trace.CallDenied:
		return b.TaskID
	case trace.Compaction:
		return b.TaskID
	case trace.CompactionDeclined:
		return b.TaskID
	case trace.MemberCallBusy:
		return b.TaskID
	case trace.MemberCallStart:
		return b.TaskID
	case trace.MemberCall:
		return b.TaskID
	case trace.TaskContinued:
		return b.TaskID
	case trace.TaskFailed:
		return b.TaskID
	case trace.TaskCanceled:
		return b.TaskID
	case trace.TaskRejected:
		return b.TaskID
	case trace.TaskEnd:
		return b.TaskID
	}
	return ""
}
