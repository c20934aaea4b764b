package door

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/murmur-go/mur/a2a"
)

// object is a JSON object's members by exact name: the door reads only the
// camelCase names (TASK-1), which a struct decode would match case-blind.
// A repeated key reads as its last value, as encoding/json would.
type object []member

func isNull(v []byte) bool { return bytes.Equal(v, nullID) }

// readObject splits raw (absent or null: empty) into its members; ok is
// false when raw is not an object.
func readObject(raw []byte) (object, bool) {
	if len(raw) == 0 || isNull(raw) {
		return object{}, true
	}
	m, ok := scanObject(raw)
	return object(m), ok
}

// get returns key's raw value and whether it is present (null included).
func (o object) get(key string) ([]byte, bool) {
	var v []byte
	found := false
	for _, m := range o {
		if string(m.key) == key {
			v, found = m.val, true
		}
	}
	return v, found
}

// has reports whether key is present and not null.
func (o object) has(key string) bool {
	v, ok := o.get(key)
	return ok && !isNull(v)
}

// str reads an optional string: present reports a non-null value; ok is
// false when that value is not a string.
func (o object) str(key string) (s string, present, ok bool) {
	v, found := o.get(key)
	if !found || isNull(v) {
		return "", false, true
	}
	if v[0] != '"' {
		return "", true, false
	}
	s, ok = decodeString(v)
	return s, true, ok
}

// decodeString decodes a raw JSON string; the body's UTF-8 and syntax were
// checked before, so one without escapes is its bytes between the quotes.
func decodeString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

// integer reads an optional integer (nil when absent or null); ok is false
// for anything else, a fraction or an exponent included.
func (o object) integer(key string) (n *int, ok bool) {
	v, found := o.get(key)
	if !found || isNull(v) {
		return nil, true
	}
	i, err := strconv.Atoi(string(v))
	if err != nil || v[0] == '+' {
		return nil, false
	}
	return &i, true
}

// boolean reads an optional bool (false when absent or null).
func (o object) boolean(key string) (b, ok bool) {
	v, found := o.get(key)
	switch {
	case !found || isNull(v):
		return false, true
	case string(v) == "true":
		return true, true
	case string(v) == "false":
		return false, true
	}
	return false, false
}

// taskID reads params.id of GetTask, CancelTask and SubscribeToTask: a
// non-empty string, else "<Method> requires an id" (METH-GT-1, METH-CT-1,
// METH-ST-1).
func taskID(method string, params []byte) (a2a.TaskID, object, error) {
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
