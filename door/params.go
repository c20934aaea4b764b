package door

import (
	"bytes"
	"encoding/json"

	"github.com/murmur-go/mur/a2a"
)

// object is a JSON object's members by exact name: the door reads only the
// camelCase names (TASK-1), which a struct decode would match case-blind.
type object map[string]json.RawMessage

// readObject decodes raw (absent or null: empty) into its members; ok is
// false when raw is not an object.
func readObject(raw json.RawMessage) (object, bool) {
	if len(raw) == 0 || bytes.Equal(raw, nullID) {
		return object{}, true
	}
	if raw[0] != '{' {
		return nil, false
	}
	var o object
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, false
	}
	return o, true
}

// has reports whether key is present and not null.
func (o object) has(key string) bool {
	v, ok := o[key]
	return ok && !bytes.Equal(v, nullID)
}

// str reads an optional string: present reports a non-null value; ok is
// false when that value is not a string.
func (o object) str(key string) (s string, present, ok bool) {
	if !o.has(key) {
		return "", false, true
	}
	v := o[key]
	if v[0] != '"' {
		return "", true, false
	}
	return s, true, json.Unmarshal(v, &s) == nil
}

// integer reads an optional integer (nil when absent or null); ok is false
// for anything else, a fraction included.
func (o object) integer(key string) (n *int, ok bool) {
	if !o.has(key) {
		return nil, true
	}
	var v int
	if err := json.Unmarshal(o[key], &v); err != nil {
		return nil, false
	}
	return &v, true
}

// boolean reads an optional bool (false when absent or null).
func (o object) boolean(key string) (b, ok bool) {
	if !o.has(key) {
		return false, true
	}
	return b, json.Unmarshal(o[key], &b) == nil
}

// taskID reads params.id of GetTask, CancelTask and SubscribeToTask: a
// non-empty string, else "<Method> requires an id" (METH-GT-1, METH-CT-1,
// METH-ST-1).
func taskID(method string, params json.RawMessage) (a2a.TaskID, object, error) {
	o, ok := readObject(params)
	if !ok {
		return "", nil, a2a.InvalidParams(method + " params must be an object")
	}
	id, _, ok := o.str("id")
	if !ok || id == "" {
		return "", nil, a2a.InvalidParams(method + " requires an id")
	}
	return a2a.TaskID(id), o, nil
}
