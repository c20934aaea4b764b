package conformance

import (
	"fmt"
	"io"
	"strings"
)

// Status is a check's outcome.
type Status string

// The outcomes of a check. WARN is a door that meets every MUST the check
// reads but not a SHOULD (RFC 2119): it is neither passed nor failed, and it
// never makes `mur conformance` exit 1.
const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Warn Status = "WARN"
	Skip Status = "SKIP"
)

// Result is one check's outcome. Why is "" for a pass; for a warning it
// names each SHOULD the door missed, joined by "; ". The JSON form is the one
// object `mur conformance` would print per check.
type Result struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status Status `json:"status"`
	Why    string `json:"why,omitempty"`
	// TCK are the A2A TCK requirement IDs the check corresponds to.
	TCK []string `json:"tck,omitempty"`
}

// String renders the result as `mur conformance` prints it (door.md GO-7).
func (r Result) String() string {
	title := r.Title
	if len(r.TCK) > 0 {
		title += " (TCK " + strings.Join(r.TCK, ", ") + ")"
	}
	if r.Status == Pass {
		return fmt.Sprintf("%s %s  %s", r.Status, r.ID, title)
	}
	return fmt.Sprintf("%s %s  %s: %s", r.Status, r.ID, title, r.Why)
}

// Totals counts results by status.
type Totals struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Warned  int `json:"warned"`
	Skipped int `json:"skipped"`
}

// Tally counts the results.
func Tally(results []Result) Totals {
	var t Totals
	for _, r := range results {
		switch r.Status {
		case Pass:
			t.Passed++
		case Fail:
			t.Failed++
		case Warn:
			t.Warned++
		case Skip:
			t.Skipped++
		}
	}
	return t
}

// String is the report's last line: "<N> passed, <M> failed", then
// ", <K> warned" when a check warned (skips count in none).
func (t Totals) String() string {
	s := fmt.Sprintf("%d passed, %d failed", t.Passed, t.Failed)
	if t.Warned > 0 {
		s += fmt.Sprintf(", %d warned", t.Warned)
	}
	return s
}

// Count returns how many results passed and how many failed.
func Count(results []Result) (passed, failed int) {
	t := Tally(results)
	return t.Passed, t.Failed
}

// Write prints the results the way `mur conformance` does (door.md GO-7): one
// line per check, then the Totals line.
func Write(w io.Writer, results []Result) error {
	var b strings.Builder
	for _, r := range results {
		b.WriteString(r.String())
		b.WriteByte('\n')
	}
	b.WriteString(Tally(results).String())
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}
