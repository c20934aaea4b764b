package conformance

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// A spec checks that a decoded JSON value has a ProtoJSON message's shape:
// camelCase keys of lf.a2a.v1 only, the right JSON types, required fields
// present, enum values as names (door.md TASK-1, CARD-1's strict parser).
type spec interface {
	check(v any, path string) error
}

type (
	strSpec  struct{}
	boolSpec struct{}
	intSpec  struct{}
	anySpec  struct{} // google.protobuf.Value
	timeSpec struct{} // google.protobuf.Timestamp: RFC 3339
	enumSpec []string
	listSpec struct {
		of       spec
		nonEmpty bool
	}
	mapSpec struct{ of spec }
	// objSpec is a message. oneOf names a oneof: at most one of its fields
	// may be set, exactly one when oneOfRequired.
	objSpec struct {
		name          string
		fields        map[string]spec
		required      []string
		oneOf         []string
		oneOfRequired bool
	}
)

func (strSpec) check(v any, path string) error {
	if _, ok := v.(string); !ok {
		return fmt.Errorf("%s is %s, want a string", path, kindOf(v))
	}
	return nil
}

func (boolSpec) check(v any, path string) error {
	if _, ok := v.(bool); !ok {
		return fmt.Errorf("%s is %s, want a boolean", path, kindOf(v))
	}
	return nil
}

func (intSpec) check(v any, path string) error {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) {
		return fmt.Errorf("%s is %s, want an integer", path, kindOf(v))
	}
	return nil
}

func (anySpec) check(any, string) error { return nil }

func (timeSpec) check(v any, path string) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s is %s, want an RFC 3339 timestamp", path, kindOf(v))
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return fmt.Errorf("%s %q is not an RFC 3339 timestamp", path, s)
	}
	return nil
}

func (e enumSpec) check(v any, path string) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s is %s, want an enum name", path, kindOf(v))
	}
	for _, name := range e {
		if s == name {
			return nil
		}
	}
	return fmt.Errorf("%s %q is not one of %s", path, s, strings.Join(e, ", "))
}

func (l listSpec) check(v any, path string) error {
	a, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s is %s, want an array", path, kindOf(v))
	}
	if l.nonEmpty && len(a) == 0 {
		return fmt.Errorf("%s is empty", path)
	}
	for i, e := range a {
		if err := l.of.check(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

func (m mapSpec) check(v any, path string) error {
	o, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s is %s, want an object", path, kindOf(v))
	}
	for _, k := range sortedKeys(o) {
		if err := m.of.check(o[k], path+"."+k); err != nil {
			return err
		}
	}
	return nil
}

func (o *objSpec) check(v any, path string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s is %s, want a %s object", path, kindOf(v), o.name)
	}
	for _, k := range sortedKeys(m) {
		fs, known := o.fields[k]
		if !known {
			return fmt.Errorf("%s has key %q, which %s does not define", path, k, o.name)
		}
		if err := fs.check(m[k], path+"."+k); err != nil {
			return err
		}
	}
	for _, k := range o.required {
		if _, has := m[k]; !has {
			return fmt.Errorf("%s lacks %q, which %s requires", path, k, o.name)
		}
	}
	if len(o.oneOf) > 0 {
		var set []string
		for _, k := range o.oneOf {
			if _, has := m[k]; has {
				set = append(set, k)
			}
		}
		if len(set) > 1 || o.oneOfRequired && len(set) == 0 {
			return fmt.Errorf("%s sets %v, want exactly one of %s", path, set, strings.Join(o.oneOf, ", "))
		}
	}
	return nil
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validate decodes raw and checks it against sp.
func validate(raw []byte, sp spec, path string) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("%s is not JSON: %v", path, err)
	}
	return sp.check(v, path)
}

// The lf.a2a.v1 messages the suite reads (a2a.proto, A2A v1.0).
var (
	taskStates = enumSpec{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED",
		"TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED",
		"TASK_STATE_AUTH_REQUIRED"}
	strList = listSpec{of: strSpec{}}
	structV = mapSpec{of: anySpec{}}

	partSpec = &objSpec{name: "Part", fields: map[string]spec{
		"text": strSpec{}, "raw": strSpec{}, "url": strSpec{}, "data": anySpec{},
		"metadata": structV, "filename": strSpec{}, "mediaType": strSpec{},
	}, oneOf: []string{"text", "raw", "url", "data"}, oneOfRequired: true}
	messageSpec = &objSpec{name: "Message", fields: map[string]spec{
		"messageId": strSpec{}, "contextId": strSpec{}, "taskId": strSpec{},
		"role": enumSpec{"ROLE_USER", "ROLE_AGENT"}, "parts": listSpec{of: partSpec},
		"metadata": structV, "extensions": strList, "referenceTaskIds": strList,
	}, required: []string{"messageId", "role", "parts"}}
	artifactSpec = &objSpec{name: "Artifact", fields: map[string]spec{
		"artifactId": strSpec{}, "name": strSpec{}, "description": strSpec{},
		"parts": listSpec{of: partSpec, nonEmpty: true}, "metadata": structV, "extensions": strList,
	}, required: []string{"artifactId", "parts"}}
	statusSpec = &objSpec{name: "TaskStatus", fields: map[string]spec{
		"state": taskStates, "message": messageSpec, "timestamp": timeSpec{},
	}, required: []string{"state"}}
	taskSpec = &objSpec{name: "Task", fields: map[string]spec{
		"id": strSpec{}, "contextId": strSpec{}, "status": statusSpec,
		"artifacts": listSpec{of: artifactSpec}, "history": listSpec{of: messageSpec}, "metadata": structV,
	}, required: []string{"id", "status"}}
	statusUpdateSpec = &objSpec{name: "TaskStatusUpdateEvent", fields: map[string]spec{
		"taskId": strSpec{}, "contextId": strSpec{}, "status": statusSpec, "metadata": structV,
	}, required: []string{"taskId", "contextId", "status"}}
	artifactUpdateSpec = &objSpec{name: "TaskArtifactUpdateEvent", fields: map[string]spec{
		"taskId": strSpec{}, "contextId": strSpec{}, "artifact": artifactSpec,
		"append": boolSpec{}, "lastChunk": boolSpec{}, "metadata": structV,
	}, required: []string{"taskId", "contextId", "artifact"}}
	streamResponseSpec = &objSpec{name: "StreamResponse", fields: map[string]spec{
		"task": taskSpec, "message": messageSpec, "statusUpdate": statusUpdateSpec, "artifactUpdate": artifactUpdateSpec,
	}, oneOf: []string{"task", "message", "statusUpdate", "artifactUpdate"}, oneOfRequired: true}
	sendResponseSpec = &objSpec{name: "SendMessageResponse", fields: map[string]spec{
		"task": taskSpec, "message": messageSpec,
	}, oneOf: []string{"task", "message"}, oneOfRequired: true}
	listResponseSpec = &objSpec{name: "ListTasksResponse", fields: map[string]spec{
		"tasks": listSpec{of: taskSpec}, "nextPageToken": strSpec{}, "pageSize": intSpec{}, "totalSize": intSpec{},
	}, required: []string{"tasks", "nextPageToken", "pageSize", "totalSize"}}
)
