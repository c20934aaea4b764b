// Package wirejson marshals request bodies as providers expect them: compact
// JSON without HTML escaping, so '<', '>' and '&' in fences and prompts stay
// one byte each (DRV-8 estimates count these bytes).
package wirejson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Marshal is json.Marshal without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Unmarshal is json.Unmarshal with a type mismatch reported by its JSON
// path ("usage: unexpected JSON string") rather than by Go type names.
func Unmarshal(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "the reply"
		}
		return fmt.Errorf("%s: unexpected JSON %s", field, te.Value)
	}
	return err
}
