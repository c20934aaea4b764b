package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// installStudio copies examples/studio into the project and installs its
// three members into the project store, as its run.sh does.
func installStudio(t *testing.T, p *project) {
	t.Helper()
	if err := os.CopyFS(p.dir, os.DirFS("../../../examples/studio")); err != nil {
		t.Fatal(err)
	}
	for _, junk := range []string{".murmur", "murmur.lock"} { // left by a local run.sh
		_ = os.RemoveAll(filepath.Join(p.dir, junk))
	}
	for _, m := range []string{"planner", "coder", "reviewer"} {
		p.mur(t, "install", m)
	}
}

// observeArrow records every value the planner→coder arrow's data-state
// takes, in order, from before the task is sent: each mutation's old value,
// then the value it has when asked (window.__seen()).
const observeArrow = `(() => {
  const old = [];
  const sel = 'g.call[data-from="planner"][data-to="coder"]';
  new MutationObserver((recs) => {
    for (const r of recs) if (r.target.matches && r.target.matches(sel)) old.push(r.oldValue);
  }).observe(document.getElementById("arrows"), {subtree: true, attributes: true, attributeFilter: ["data-state"], attributeOldValue: true});
  window.__seen = () => { const g = document.querySelector(sel); return {old, now: g ? g.dataset.state : ""}; };
})()`

// TestViewStudioInBrowser starts examples/studio in door mode with the real
// mur, opens mur view of its formation in headless Chromium, sends the
// entry a task over A2A, and checks what the page shows: the three members
// with capsule@version and state, the roster's edges, the planner→coder
// call arrow showing started and then completed, and the task's timeline
// listing that call; it saves screenshots under the test's artifact
// directory.
func TestViewStudioInBrowser(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	installStudio(t, p)
	launcher, fl, entry := p.launch(t)
	view, vl := p.view(t, fl.FormationID)
	if vl.Kind != "formation" {
		t.Errorf("mur view --json kind = %q, want formation", vl.Kind)
	}
	tab := browser(t, 4*time.Minute)
	if err := chromedp.Do(tab, chromedp.Navigate(vl.URL)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	poll(t, tab, `["planner", "coder", "reviewer"].every((n) => { const g = document.querySelector('g.node[data-member="' + n + '"]'); return g && g.dataset.state === "ready"; })`,
		"the three members, each ready")
	nodes := eval[[]string](t, tab, `[...document.querySelectorAll("g.node")].map((g) => g.dataset.member + " " + g.querySelector(".cap").textContent + " " + g.querySelector(".state").textContent)`)
	slices.Sort(nodes)
	if want := []string{"coder studio-coder@0.1.0 ready", "planner studio-planner@0.1.0 ready", "reviewer studio-reviewer@0.1.0 ready"}; !slices.Equal(nodes, want) {
		t.Errorf("member nodes = %q, want %q", nodes, want)
	}
	edges := eval[[]string](t, tab, `[...document.querySelectorAll("path.edge")].map((e) => e.dataset.from + "→" + e.dataset.to).sort()`)
	if want := []string{"planner→coder", "planner→reviewer", "reviewer→coder"}; !slices.Equal(edges, want) {
		t.Errorf("roster edges = %q, want %q", edges, want)
	}
	unnamed := eval[[]string](t, tab, `[...document.querySelectorAll("button, [role=button]")].filter((e) => !(e.getAttribute("aria-label") || e.textContent).trim()).map((e) => e.outerHTML)`)
	if len(unnamed) > 0 {
		t.Errorf("controls without an accessible name: %q", unnamed)
	}
	eval[chromedp.Void](t, tab, observeArrow)

	task := sendTask(t, entry.URL, p.operatorToken(t, entry.SessionID), "Write a Go function that reverses a string")
	poll(t, tab, `(() => { const g = document.querySelector('g.call[data-from="planner"][data-to="coder"]'); return g && g.dataset.state === "completed"; })()`,
		"the planner→coder arrow to show completed")
	seen := eval[struct {
		Old []*string `json:"old"`
		Now string    `json:"now"`
	}](t, tab, `window.__seen()`)
	var states []string
	for _, s := range seen.Old {
		if s != nil {
			states = append(states, *s)
		}
	}
	states = slices.Compact(append(states, seen.Now)) // a repaint in the same state is no new state
	if len(states) < 2 || states[0] != "started" || states[len(states)-1] != "completed" || slices.Index(states, "completed") != len(states)-1 {
		t.Errorf("the planner→coder arrow's states = %q, want started first and completed last", states)
	}
	poll(t, tab, `(() => { const b = document.querySelector('button.task[data-task="`+task+`"]'); return b && b.dataset.state === "completed"; })()`,
		"planner's task to show completed")
	poll(t, tab, `document.querySelectorAll('#calls tbody tr[data-state="completed"]').length === 3 && [...document.querySelectorAll("g.node")].every((g) => g.dataset.state === "idle")`,
		"the three calls completed and every member idle")

	calls := tracetest.OfType[trace.MemberCall](t, tracetest.Records(t, entry.RecordsDir))
	var callID string
	for _, c := range calls {
		if c.Member == "coder" && c.TaskID == task {
			callID = c.CallID
		}
	}
	if callID == "" {
		t.Fatalf("planner's trace holds no member_call to coder for task %s: %+v", task, calls)
	}
	arrowCall := eval[string](t, tab, `document.querySelector('g.call[data-from="planner"][data-to="coder"]').dataset.call`)
	if arrowCall != callID {
		t.Errorf("the planner→coder arrow shows call %q, want %q from the trace", arrowCall, callID)
	}
	screenshot(t, tab, "view-studio.png")

	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`button.task[data-task="`+task+`"]`))); err != nil {
		t.Fatalf("click planner's task: %v", err)
	}
	poll(t, tab, `!!document.querySelector('#timeline li[data-kind="member_call"][data-call="`+callID+`"]')`, "the timeline to list the call to coder")
	timeline := eval[string](t, tab, `document.getElementById("timeline").innerText`)
	for _, want := range []string{"received at the door", "turn 0 · inference (primary)", "turn 0 · tool call-member", "call to coder started", "call to coder completed",
		"waited for 1 answer(s), continuation 1", "call to reviewer completed", "ended ok", "latency", "tokens", "call " + callID} {
		if !strings.Contains(timeline, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, timeline)
		}
	}
	screenshot(t, tab, "view-studio-timeline.png")

	if code := view.stop(t); code != 0 {
		t.Errorf("mur view exit = %d after SIGTERM, want 0\n%s", code, view.stderr.String())
	}
	if code := launcher.stop(t); code != 143 {
		t.Errorf("launcher exit = %d after SIGTERM, want 143", code)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func eval[T any](t *testing.T, tab context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %.60q: %v", expr, err)
	}
	return v
}
