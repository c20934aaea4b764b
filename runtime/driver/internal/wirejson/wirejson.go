// Package wirejson reads provider replies: a type mismatch names its JSON
// path. Request bodies are written with a2a.Marshal, compact JSON without
// HTML escaping, so '<', '>' and '&' in fences and prompts stay one byte
// each (DRV-8 estimates count these bytes).
package wirejson

import (
	"encoding/json"
	"errors"
	"fmt"
)

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
