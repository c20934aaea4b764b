// Package diag holds every user-facing diagnostic mur prints: its stable code,
// its exact message shape and its hint (spec README.md "Diagnostic codes",
// formations.md §15). Each message is built in exactly one constructor here;
// the rest of the tree calls the constructor and never spells a message.
//
// # Example
//
//	d := diag.ManMissingKey("murmur.yaml", "inference.driver.kind")
//	fmt.Fprint(os.Stderr, d.Render()) // error[E-MAN-001]: murmur.yaml: missing required key '…'
//	                                  //   hint: add inference.driver.kind to murmur.yaml
package diag

import (
	"errors"
	"strings"
)

// Code is a stable diagnostic identifier, e.g. "E-ROS-008". Codes are never
// renumbered or reused.
type Code string

// Warning reports whether the code is a warning (W-…) rather than an error.
func (c Code) Warning() bool { return strings.HasPrefix(string(c), "W-") }

// Diagnostic is an error meant for the user.
type Diagnostic struct {
	Code Code
	Msg  string // exact spec text; may hold several lines (E-RUN-045)
	Hint string // "" when the code has none (warnings never print one)
	Err  error  // cause; may be nil
}

func (d *Diagnostic) Error() string { return d.Msg }
func (d *Diagnostic) Unwrap() error { return d.Err }

// Render is the diagnostic as stderr shows it (README.md "Output contract"):
// "error[<CODE>]: <message>" and "  hint: <hint>", or one "warning[<CODE>]: <message>"
// line. The result ends with a newline.
func (d *Diagnostic) Render() string {
	var b strings.Builder
	if d.Code.Warning() {
		b.WriteString("warning[")
	} else {
		b.WriteString("error[")
	}
	b.WriteString(string(d.Code))
	b.WriteString("]: ")
	b.WriteString(d.Msg)
	b.WriteString("\n")
	if d.Hint != "" && !d.Code.Warning() {
		b.WriteString("  hint: ")
		b.WriteString(d.Hint)
		b.WriteString("\n")
	}
	return b.String()
}

// As returns the Diagnostic in err's chain, if any.
func As(err error) (*Diagnostic, bool) {
	var d *Diagnostic
	ok := errors.As(err, &d)
	return d, ok
}

// Is reports whether err carries a diagnostic with the given code.
func Is(err error, c Code) bool {
	d, ok := As(err)
	return ok && d.Code == c
}

func mk(c Code, msg, hint string) *Diagnostic { return &Diagnostic{Code: c, Msg: msg, Hint: hint} }

// WithErr returns d with its cause set (for errors.Is on the cause).
func (d *Diagnostic) WithErr(err error) *Diagnostic { d.Err = err; return d }
