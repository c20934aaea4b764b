package launcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/diag"
)

// TestRosterBlock pins DOC-3's block for an admitted roster: columns padded,
// entry to 5, peers to 13, reachability in roster order.
func TestRosterBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, roster.FileName)
	text := "roster_version: 1\nmembers:\n  - {name: planner, capsule: planner, version: 0.3.0, entry: true}\n  - {name: coder, capsule: coder, version: 1.2.0}\n  - {name: reviewer, capsule: reviewer, version: 0.9.0}\nreachability:\n  - {from: reviewer, to: [coder]}\n  - {from: planner, to: [coder, reviewer]}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, warns, err := roster.Admit(path, testStore{})
	if err != nil {
		t.Fatal(err)
	}
	got := RosterBlock(path, f, warns, nil)
	want := "Roster\n  file: " + path + "\n" +
		"  planner    planner@0.3.0    entry   serves peers    authenticated door\n" +
		"  coder      coder@1.2.0              serves peers    authenticated door\n" +
		"  reviewer   reviewer@0.9.0           serves peers    authenticated door\n" +
		"  reachability: planner → coder, planner → reviewer, reviewer → coder\n"
	if got != want {
		t.Errorf("RosterBlock =\n%s\nwant\n%s", got, want)
	}
	refused := diag.RosNoAuth("coder")
	got = RosterBlock(path, nil, nil, refused)
	want = "Roster\n  file: " + path + "\n  ✗  error[" + string(refused.Code) + "]: " + refused.Msg + "\n"
	if got != want {
		t.Errorf("refused RosterBlock = %q, want %q", got, want)
	}
	public := roster.Facts{Acceptance: "single", QueueDepth: 1}
	all := strings.Replace(text, text[strings.Index(text, "reachability:"):], "reachability: all\n", 1)
	os.WriteFile(path, []byte(all), 0o644)
	f, warns, err = roster.Admit(path, testStore{facts: map[string]roster.Facts{"planner": public, "coder": public}})
	if err != nil {
		t.Fatal(err)
	}
	got = RosterBlock(path, f, warns, nil)
	if !strings.Contains(got, "  coder      coder@1.2.0              refuses peers   public door\n  reviewer") ||
		!strings.HasSuffix(got, "  reachability: none\n") {
		t.Errorf("all with no pair =\n%s", got)
	}
}
