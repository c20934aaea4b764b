package conformance_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/murmur-go/mur/conformance"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// statuses maps check id → status for the results.
func statuses(results []conformance.Result) map[string]conformance.Status {
	m := map[string]conformance.Status{}
	for _, r := range results {
		m[r.ID] = r.Status
	}
	return m
}

// expect runs the suite and checks that nothing fails, that the results are
// in suite order, and that exactly the named checks skip.
func expect(t *testing.T, cfg conformance.Config, skips ...string) []conformance.Result {
	t.Helper()
	results := conformance.Run(context.Background(), cfg)
	ids := conformance.IDs()
	if len(results) != len(ids) {
		t.Fatalf("Run() gave %d results, want one per check (%d)", len(results), len(ids))
	}
	want := map[string]bool{}
	for _, id := range skips {
		want[id] = true
	}
	for i, r := range results {
		if r.ID != ids[i] {
			t.Errorf("result %d is %s, want %s (suite order)", i, r.ID, ids[i])
		}
		switch {
		case r.Status == conformance.Fail:
			t.Errorf("%s", r)
		case r.Status == conformance.Skip && !want[r.ID]:
			t.Errorf("%s (unexpected skip)", r)
		case r.Status == conformance.Pass && want[r.ID]:
			t.Errorf("%s passed, want it skipped", r.ID)
		}
	}
	return results
}

// The whole suite against mur's own door, public, queue, with a slow task (GO-7).
func TestSuite_PublicQueueDoor_GO7(t *testing.T) {
	t.Parallel()
	d := startDoor(t, doorOpts{})
	expect(t, conformance.Config{URL: d.url, SlowTaskText: slowText},
		"auth.missing", "auth.invalid", "auth.scoped", // no token given
		"stream.unsupported", // the card says streaming true
		"formation.scope", "formation.forged", "formation.own-tasks",
		"send.continue", // its tasks never ask
	)
}

// The suite against a door whose every task asks for input (input.md): the
// interrupted paths of send.blocking, cancel.live and subscribe.live run, a
// reply continues a task (send.continue), and the tasks the suite leaves
// waiting are released between checks, so nothing fails.
func TestSuite_AskingDoor_INP14(t *testing.T) {
	t.Parallel()
	d := startDoor(t, doorOpts{})
	expect(t, conformance.Config{URL: d.url, TaskText: askText + " one short sentence"},
		"auth.missing", "auth.invalid", "auth.scoped",
		"stream.unsupported",
		"formation.scope", "formation.forged", "formation.own-tasks",
	)
}

// An authenticated door that accepts peers, judged with its operator token
// and a credential that reaches GetTask and ListTasks only.
func TestSuite_AuthenticatedDoor_AUTH7(t *testing.T) {
	t.Parallel()
	d := startDoor(t, doorOpts{auth: true, peerTasks: true})
	expect(t, conformance.Config{URL: d.url, Token: d.token, ScopedToken: d.scoped, SlowTaskText: slowText},
		"auth.public", "stream.unsupported", "formation.scope", "formation.forged", "formation.own-tasks",
		"send.continue") // its tasks never ask
}

// A formation member's door, judged with the door token, a scoped credential
// and a member token, its tasks asking for input: every check runs (AUTH-6,
// GO-5).
func TestSuite_FormationDoor_AUTH6(t *testing.T) {
	t.Parallel()
	d := startDoor(t, doorOpts{formation: true})
	expect(t, conformance.Config{URL: d.url, Token: d.token, ScopedToken: d.scoped, MemberToken: d.member, SlowTaskText: slowText, TaskText: askText + " one short sentence"},
		"auth.public", "stream.unsupported")
}

// With only a member token the formation checks that need no door token
// run; the JSON-RPC checks skip as for any locked door.
func TestSuite_MemberTokenOnly_AUTH6(t *testing.T) {
	t.Parallel()
	d := startDoor(t, doorOpts{formation: true})
	got := statuses(conformance.Run(context.Background(), conformance.Config{URL: d.url, MemberToken: d.member}))
	for id, want := range map[string]conformance.Status{
		"formation.scope": conformance.Pass, "formation.forged": conformance.Pass,
		"formation.own-tasks": conformance.Skip, "send.blocking": conformance.Skip,
	} {
		if got[id] != want {
			t.Errorf("%s = %s, want %s", id, got[id], want)
		}
	}
}

// A door under task_acceptance none serves no task-starting method: the
// checks that need tasks skip, the CARD-5 exceptions are checked.
func TestSuite_NoneDoor_CARD5(t *testing.T) {
	t.Parallel()
	d := startDoor(t, doorOpts{acceptance: tasktable.ModeNone})
	results := expect(t, conformance.Config{URL: d.url, SlowTaskText: slowText},
		"auth.missing", "auth.invalid", "auth.scoped", "formation.scope", "formation.forged", "formation.own-tasks",
		"send.blocking", "send.return-immediately", "send.invalid-params", "send.unknown-task",
		"send.ended-task", "send.continue", "send.content-type", "get.task", "get.history", "list.filters",
		"cancel.live", "cancel.ended", "stream.send", "subscribe.live", "subscribe.ended",
		"subscribe.unknown", "murmur.forget-session", "rest.send", "rest.get", "rest.cancel", "rest.stream")
	if st := statuses(results); st["stream.unsupported"] != conformance.Pass || st["murmur.methods"] != conformance.Pass {
		t.Errorf("stream.unsupported %s, murmur.methods %s; want both PASS under none", st["stream.unsupported"], st["murmur.methods"])
	}
}

// Without SlowTaskText the suite still holds: live-task checks pass or skip,
// never fail, and every other check passes — a run in which everything
// skipped would prove nothing. What may skip is what this run withholds
// (the slow task, every token) or what this door does not do (streaming
// off).
func TestSuite_WithoutSlowTask(t *testing.T) {
	t.Parallel()
	d := startDoor(t, doorOpts{})
	mayskip := map[string]bool{
		"send.continue": true, "cancel.live": true, "subscribe.live": true, "rest.cancel": true, // no slow task
		"auth.missing": true, "auth.invalid": true, "auth.scoped": true, // no token
		"formation.scope": true, "formation.forged": true, "formation.own-tasks": true, // no member token
		"stream.unsupported": true, // the card says streaming true
	}
	results := conformance.Run(context.Background(), conformance.Config{URL: d.url})
	for _, r := range results {
		if r.Status == conformance.Fail || r.Status == conformance.Skip && !mayskip[r.ID] {
			t.Errorf("%s", r)
		}
	}
	if p, _ := conformance.Count(results); p < len(results)-len(mayskip) {
		t.Errorf("%d of %d checks passed, want at least %d", p, len(results), len(results)-len(mayskip))
	}
}

// An authenticated door judged without a token: JSON-RPC checks skip, none fail.
func TestSuite_TokenMissing(t *testing.T) {
	t.Parallel()
	d := startDoor(t, doorOpts{auth: true})
	for _, r := range conformance.Run(context.Background(), conformance.Config{URL: d.url}) {
		if r.Status == conformance.Fail {
			t.Errorf("%s", r)
		}
		if r.ID == "send.blocking" && (r.Status != conformance.Skip || r.Why != "the card requires a token and none was given") {
			t.Errorf("%s, want it skipped for want of a token", r)
		}
	}
}

// An unreachable URL fails check 1 and skips the rest (door.md GO-7).
func TestSuite_Unreachable_GO7(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	results := conformance.Run(context.Background(), conformance.Config{URL: url})
	if results[0].ID != "card.fetch" || results[0].Status != conformance.Fail || !strings.Contains(results[0].Why, "did not answer") {
		t.Errorf("first result %s, want card.fetch FAIL: the door did not answer", results[0])
	}
	for _, r := range results[1:] {
		if r.Status != conformance.Skip {
			t.Errorf("%s, want SKIP after an unreachable card", r)
		}
	}
	if p, f := conformance.Count(results); p != 0 || f != 1 {
		t.Errorf("Count() = %d passed, %d failed; want 0, 1", p, f)
	}
}

// RunT drives the suite as subtests.
func TestRunT(t *testing.T) {
	d := startDoor(t, doorOpts{})
	conformance.RunT(t, conformance.Config{URL: d.url, SlowTaskText: slowText})
}
