package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Marshal is json.Marshal without HTML escaping: compact, struct fields in
// declaration order, '<', '>' and '&' written as themselves (a tool result's
// "<untrusted-content …>" fence, a reply's '&'), no trailing newline. It is
// the tree's one such encoder: the door's answers, errors and watch frames,
// trace lines, tool results and provider request bodies all go through it,
// and a2a, which imports only the standard library, is the package every
// other may import (STYLE.md §2).
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Member is one member of an Object.
type Member struct{ Key, Value string }

// Object is a JSON object of string members in slice order: encoding/json
// would write a map's keys sorted, where a wire contract fixes another
// order (an ErrorInfo's metadata, door.md RPC-4; a running record's tokens,
// capsule.md CLI-11). It is written without HTML escaping; UnmarshalJSON
// keeps the document's order.
type Object []Member

// MarshalJSON writes o's members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// MemberError is an Object member whose value is not a string.
type MemberError struct {
	Key string
	Err error
}

func (e *MemberError) Error() string { return e.Key + ": " + e.Err.Error() }

// Unwrap returns the decoding error.
func (e *MemberError) Unwrap() error { return e.Err }

// UnmarshalJSON reads an object of string values, keeping its key order; a
// member that is not a string is a *MemberError.
func (o *Object) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil {
		return err
	} else if d, ok := t.(json.Delim); !ok || d != '{' {
		return errors.New("not an object")
	}
	var out Object
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return &MemberError{Key: k.(string), Err: err}
		}
		out = append(out, Member{Key: k.(string), Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*o = out
	return nil
}
