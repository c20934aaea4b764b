package trace

import (
	"bytes"
	"encoding/json"
)

// F is one payload field: a key and its value. Field order is a contract
// (capsule.md §6), so records are built as ordered lists of F.
type F struct {
	K string
	V any
}

// Obj is a JSON object whose keys keep their order. Use it for nested values
// whose key order is part of a contract (tools.md STATUS-1, REC-1).
type Obj []F

// MarshalJSON writes the fields in order, without HTML escaping.
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(f.K)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(f.V)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Get returns the value of key k and whether it is present.
func (o Obj) Get(k string) (any, bool) {
	for _, f := range o {
		if f.K == k {
			return f.V, true
		}
	}
	return nil, false
}

// marshal encodes v as compact JSON without HTML escaping and without the
// encoder's trailing newline.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Parent is the node a record type hangs from (TRACE-2).
type Parent int

// The three kinds of node.
const (
	ParentSession Parent = iota
	ParentTask
	ParentTurn
)

// taskParented lists the record types whose parent is their task (TRACE-2).
var taskParented = map[string]bool{
	"task_end": true, "task_failed": true, "task_canceled": true, "task_reopened": true,
	"task_continued": true, "keep_working": true, "done_check": true, "inference": true,
	"member_call": true, "control_applied": true, "tools_refreshed": true,
}

// turnParented lists the record types whose parent is the turn that made the
// call (TRACE-2), plan and delegation records included.
var turnParented = map[string]bool{
	"tool_call": true, "skill_call": true, "shell": true, "shell_detached": true,
	"tool_input_refused": true, "spend_ceiling_reached": true, "deadline_notice": true,
	"session_status": true, "background_command": true, "control_change": true,
	"control_refused": true, "artifact_pulled": true, "member_call_busy": true,
	"member_call_start": true, "plan_start": true, "plan_step_start": true, "plan_step": true,
	"plan_end": true, "delegation_start": true, "delegation": true,
}

// ParentOf returns the node kind a record type hangs from (TRACE-2); every type
// not listed hangs from the session.
func ParentOf(eventType string) Parent {
	switch {
	case taskParented[eventType]:
		return ParentTask
	case turnParented[eventType]:
		return ParentTurn
	}
	return ParentSession
}

// syncAfter lists the record types after which the file is fsynced (TRACE-3).
var syncAfter = map[string]bool{
	"session_start": true, "task_start": true, "task_end": true,
	"shell_detached": true, "session_end": true,
}
