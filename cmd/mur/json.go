package main

import (
	"encoding/json"
	"io"

	"github.com/murmur-go/mur/runtime/diag"
)

// writeJSON writes v as one compact JSON document and a newline: what every
// command's --json prints on stdout (docs/json.md). Field order is the
// declaration order of v's type; HTML is not escaped, so texts read as
// they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// diagJSON is a diagnostic inside a --json document (docs/json.md
// "Diagnostics"): the code, the message as stderr prints it after
// "error[<code>]: ", and the hint when there is one.
type diagJSON struct {
	Code    diag.Code `json:"code"`
	Message string    `json:"message"`
	Hint    string    `json:"hint,omitempty"`
}

// toDiagJSON converts d; nil stays nil.
func toDiagJSON(d *diag.Diagnostic) *diagJSON {
	if d == nil {
		return nil
	}
	return &diagJSON{Code: d.Code, Message: d.Msg, Hint: d.Hint}
}

// diagsJSON converts ds, never nil (an empty list is [], not null).
func diagsJSON(ds []*diag.Diagnostic) []diagJSON {
	out := make([]diagJSON, 0, len(ds))
	for _, d := range ds {
		out = append(out, *toDiagJSON(d))
	}
	return out
}
