package tool

import "encoding/json"

// DecodeObject decodes a tool input object into a map of raw values; a
// non-object input reads as an empty object.
func DecodeObject(input json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(input, &m); err != nil || m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}

// RawString returns a raw JSON value as a string: the string itself, or the
// JSON text of any other value. ok is false for a non-string (and for an
// absent, nil value).
func RawString(v json.RawMessage) (s string, ok bool) {
	if err := json.Unmarshal(v, &s); err == nil {
		return s, true
	}
	return string(v), false
}

// StringField returns obj[key] when it is present and a JSON string.
func StringField(obj map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := obj[key]
	if !ok {
		return "", false
	}
	return RawString(raw)
}

// Needs is TOOL-11's refusal of a missing or mistyped required field:
// "'<tool>' needs <field>".
func Needs(tool, field string) Result {
	return Refusal(tool, "'"+tool+"' needs "+field)
}
