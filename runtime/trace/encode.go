package trace

import (
	"errors"
	"fmt"

	"github.com/murmur-go/mur/a2a"
)

// Header is what every line starts with (TRACE-1): event_type, event_id,
// parent_id (null only on session_start), session_id, timestamp (Unix ms).
type Header struct {
	EventType string  `json:"event_type"`
	EventID   string  `json:"event_id"`
	ParentID  *string `json:"parent_id"`
	SessionID string  `json:"session_id"`
	Timestamp int64   `json:"timestamp"`
}

// errUnregistered is the programmer error of a Record value whose Go type
// is not in Kinds.
var errUnregistered = errors.New("record type not in trace.Kinds")

// MarshalLine returns the line the Writer writes for r under h, without
// its trailing newline: h's keys, then r's payload fields in declaration
// order (TRACE-1). h.EventType is set from r. Nothing is HTML-escaped.
func MarshalLine(h Header, r Record) ([]byte, error) {
	if kindOf(r) == nil {
		return nil, errUnregistered
	}
	h.EventType = r.EventType()
	head, err := a2a.Marshal(h)
	if err != nil {
		return nil, err
	}
	return join(head, r)
}

// Marshal returns r as one JSON object without the envelope: event_type,
// then r's payload fields (the form tool tests keep golden).
func Marshal(r Record) ([]byte, error) {
	if kindOf(r) == nil {
		return nil, errUnregistered
	}
	head, err := a2a.Marshal(struct {
		EventType string `json:"event_type"`
	}{r.EventType()})
	if err != nil {
		return nil, err
	}
	return join(head, r)
}

// join appends r's payload fields to the object head.
func join(head []byte, r Record) ([]byte, error) {
	body, err := a2a.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode %s record: %w", r.EventType(), err)
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("encode %s record: not a JSON object", r.EventType())
	}
	if string(body) == "{}" {
		return head, nil
	}
	out := append(head[:len(head)-1:len(head)-1], ',')
	return append(out, body[1:]...), nil
}
