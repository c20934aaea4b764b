package conformance_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-go/mur/conformance"
	"github.com/murmur-go/mur/internal/golden"
)

// The report's line shapes are door.md GO-7's: skips count in no total, a
// warning in its own.
func TestWrite_GO7(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	err := conformance.Write(&b, []conformance.Result{
		{ID: "card.fetch", Title: "The Agent Card is served", Status: conformance.Pass},
		{ID: "rpc.batch", Title: "A batch is -32600", Status: conformance.Fail, Why: "HTTP 200, want -32600"},
		{ID: "auth.missing", Title: "No token is 401", Status: conformance.Skip, Why: "no token was given"},
		{ID: "auth.invalid", Title: "A bad token is 401", Status: conformance.Warn, Why: "no error attribute"},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "write", b.String())
}

// Check ids are unique and stable in form.
func TestIDs(t *testing.T) {
	t.Parallel()
	ids := conformance.IDs()
	if ids[0] != "card.fetch" {
		t.Errorf("IDs()[0] = %s, want card.fetch (GO-7: an unreachable URL fails check 1)", ids[0])
	}
	if ids[len(ids)-1] != "murmur.session-stop" {
		t.Errorf("last id %s, want murmur.session-stop (it cancels every live task)", ids[len(ids)-1])
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] || strings.ToLower(id) != id || !strings.Contains(id, ".") {
			t.Errorf("id %q repeated or malformed", id)
		}
		seen[id] = true
	}
}

// Without a warning the last line is exactly GO-7's "<N> passed, <M> failed".
func TestTally_GO7(t *testing.T) {
	t.Parallel()
	rs := []conformance.Result{{Status: conformance.Pass}, {Status: conformance.Skip}, {Status: conformance.Fail}}
	if got := conformance.Tally(rs); got != (conformance.Totals{Passed: 1, Failed: 1, Skipped: 1}) || got.String() != "1 passed, 1 failed" {
		t.Errorf("Tally() = %+v %q", got, got)
	}
	rs = append(rs, conformance.Result{Status: conformance.Warn})
	if got := conformance.Tally(rs).String(); got != "1 passed, 1 failed, 1 warned" {
		t.Errorf("with a warning: %q", got)
	}
}

// A Result and the Totals encode with lower-case keys and why left out of a
// pass: the data a JSON report of a run is made of.
func TestResultJSON(t *testing.T) {
	t.Parallel()
	rs := []conformance.Result{
		{ID: "card.fetch", Title: "The Agent Card is served", Status: conformance.Pass},
		{ID: "auth.invalid", Title: "A bad token is 401", Status: conformance.Warn, Why: "no error attribute"},
	}
	b, err := json.Marshal(map[string]any{"results": rs, "totals": conformance.Tally(rs)})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "json", string(b)+"\n")
}
