package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/trace"
)

// quick answers at once.
func quick(name, caps string) capsule {
	return capsule{name: name, caps: caps, script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: " + strings.ToUpper(name) + "-DONE\n"}
}

// calls is a scripted turn of delegate-task calls, "capsule@version" each,
// then a turn ending the task.
func calls(targets ...string) string {
	var b strings.Builder
	b.WriteString("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls:\n")
	for i, tg := range targets {
		c, v, _ := strings.Cut(tg, "@")
		fmt.Fprintf(&b, "          - {name: delegate-task, input: {capsule: %s, version: \"%s\", task: \"t%d\"}}\n", c, v, i)
	}
	b.WriteString("      - text: waiting\n      - text: JUDGED\n")
	return b.String()
}

const envelopeTail = ", which its parent does not hold — a spawned capsule can never hold more capability than the capsule that spawned it"

// refused runs parent, whose calls the referee refuses, and checks each
// call's result and delegation record against want, in order: a refusal is
// failed, its sentence the fenced body (DLG-4), with a delegation record
// outcome refused, no delegation id, the sentence as reason (DLG-9), and
// nothing started (no child directory).
func refused(t *testing.T, w *world, parent capsule, want []string) {
	t.Helper()
	dir := w.put(t, parent)
	r, stderr, code := w.run(t, dir, "judge")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	out := toolOutputs(t, recs, "delegate-task")
	dels := of[trace.Delegation](t, recs)
	if len(out) != len(want) || len(dels) != len(want) {
		t.Fatalf("%d results, %d delegation records, want %d:\n%s", len(out), len(dels), len(want), strings.Join(out, "\n"))
	}
	for i, sentence := range want {
		if got := out[i]; got != "<untrusted-content source=tool:delegate-task>\n"+sentence+"\n</untrusted-content>" {
			t.Errorf("call %d result =\n%s\nwant the sentence\n%s", i, got, sentence)
		}
		d := dels[i]
		if d.Outcome != "refused" || d.DelegationID != nil || d.ChildSessionID != nil || d.Reason == nil || *d.Reason != sentence {
			t.Errorf("call %d delegation = %+v", i, d)
		}
	}
	for _, tc := range of[trace.ToolCall](t, recs) {
		if tc.Status != "error" {
			t.Errorf("%s call status %s, want error", tc.ToolName, tc.Status)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(r.Workdir, ".murmur", "children")); err == nil && len(ents) > 0 {
		t.Errorf("a refused delegation made a child directory: %v", ents)
	}
}

// TestRefereeRefusals_DLG2: the allow list (name, then exact version) and
// the envelope, axis by axis, each refused with its exact sentence before
// anything is spawned.
func TestRefereeRefusals_DLG2(t *testing.T) {
	w := newWorld(t)
	w.install(t,
		quick("netchild", "  network:\n    allow: [localhost, api.example.com]\n"),
		quick("urlchild", "  network:\n    allow: [\"http://example.com:8080\"]\n"),
		quick("fetchchild", "  peer_fetch:\n    allow: [peer.example.com]\n"),
		quick("shellchild", "  shell:\n    allow: [bash, curl]\n"),
		quick("spawnchild", "  spawn:\n    allow: [local/netchild@0.1.0, local/other@0.1.0]\n"),
	)
	refused(t, w, capsule{name: "judge",
		caps: "  network:\n    allow: [localhost, \"https://example.com\"]\n  shell:\n    allow: [bash]\n" +
			"  spawn:\n    allow: [local/netchild@0.1.0, local/urlchild@0.1.0, local/fetchchild@0.1.0, local/shellchild@0.1.0, local/spawnchild@0.1.0]\n",
		script: calls("stranger@0.1.0", "netchild@9.9.9", "netchild@0.1.0", "urlchild@0.1.0", "fetchchild@0.1.0", "shellchild@0.1.0", "spawnchild@0.1.0")},
		[]string{
			"capsule 'stranger' is not in parent's spawn_allow",
			"capsule 'netchild@9.9.9' is not in parent's spawn_allow",
			"capabilities.network.allow: the child declares 'api.example.com'" + envelopeTail,
			"capabilities.network.allow: the child declares 'http://example.com:8080'" + envelopeTail,
			"capabilities.peer_fetch.allow: the child declares 'peer.example.com'" + envelopeTail,
			"capabilities.shell.allow: the child declares 'curl'" + envelopeTail,
			"capabilities.spawn.allow: the child declares 'local/other@0.1.0'" + envelopeTail,
		})
}

// TestRefereeScope_DLG2: under a parent's filesystem scope a child must
// declare one at or beneath it.
func TestRefereeScope_DLG2(t *testing.T) {
	w := newWorld(t)
	w.install(t, quick("unscoped", ""), quick("elsewhere", "  filesystem:\n    scope: data-other\n"))
	refused(t, w, capsule{name: "judge",
		caps:   "  filesystem:\n    scope: data\n  spawn:\n    allow: [local/unscoped@0.1.0, local/elsewhere@0.1.0]\n",
		script: calls("unscoped@0.1.0", "elsewhere@0.1.0")},
		[]string{
			"capabilities.filesystem.scope: the child declares '(none: the whole workdir)'" + envelopeTail,
			"capabilities.filesystem.scope: the child declares 'data-other'" + envelopeTail,
		})
}

// TestRefereeLiveChildren_DLG2: a fifth child while four run is refused;
// the four are ended at the delegation deadline.
func TestRefereeLiveChildren_DLG2(t *testing.T) {
	w := newWorld(t)
	w.env = []string{"MURMUR_DELEGATION_TIMEOUT_SECS=1"}
	w.install(t, slow)
	dir := w.put(t, capsule{name: "judge", caps: spawnsAll, script: calls("slow@0.1.0", "slow@0.1.0", "slow@0.1.0", "slow@0.1.0", "slow@0.1.0")})
	r, stderr, code := w.run(t, dir, "judge")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	out := toolOutputs(t, recs, "delegate-task")
	want := "<untrusted-content source=tool:delegate-task>\ncapsule 'slow' was not started: this capsule already runs 4 sub-capsules, the most it may run at once; wait for an outcome before delegating again\n</untrusted-content>"
	if len(out) != 5 || out[4] != want {
		t.Fatalf("results:\n%s", strings.Join(out, "\n"))
	}
	var outcomes []string
	for _, d := range of[trace.Delegation](t, recs) {
		outcomes = append(outcomes, d.Outcome)
	}
	if got := strings.Join(outcomes, ","); got != "refused,terminated,terminated,terminated,terminated" {
		t.Errorf("delegation outcomes = %s", got)
	}
	if c := of[trace.TaskContinued](t, recs); len(c) != 1 || len(c[0].Delegations) != 4 {
		t.Errorf("task_continued = %+v, want one round of 4 outcomes", c)
	}
}

// TestRefereeDepth_DLG2: delegation goes at most 3 levels below a top-level
// capsule: the third-level child's own delegation is refused.
func TestRefereeDepth_DLG2(t *testing.T) {
	w := newWorld(t)
	allow := func(names ...string) string {
		if len(names) == 0 {
			return ""
		}
		var refs []string
		for _, n := range names {
			refs = append(refs, "local/"+n+"@0.1.0")
		}
		return "  spawn:\n    allow: [" + strings.Join(refs, ", ") + "]\n"
	}
	chain := []string{"d1", "d2", "d3", "d4"}
	var caps []capsule
	for i, name := range chain {
		if i == len(chain)-1 {
			caps = append(caps, quick(name, ""))
			continue
		}
		caps = append(caps, delegating(name, allow(chain[i+1:]...), chain[i+1], "go deeper"))
	}
	w.install(t, caps...)
	dir := w.put(t, delegating("top", allow(chain...), "d1", "go deeper"))
	r, stderr, code := w.run(t, dir, "descend")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	// Walk down: top → d1 → d2 → d3, whose delegation to d4 is refused.
	recs, wd := records(t, r.RecordsDir), r.Workdir
	for level := 1; level <= 3; level++ {
		st := of[trace.DelegationStart](t, recs)
		if len(st) != 1 || st[0].Capsule != chain[level-1] {
			t.Fatalf("level %d: delegation_start = %+v", level, st)
		}
		wd = filepath.Join(wd, st[0].ChildWorkdir)
		recs = records(t, w.childRecords(t, wd, st[0].ChildSessionID))
	}
	out := toolOutputs(t, recs, "delegate-task")
	want := "<untrusted-content source=tool:delegate-task>\ncapsule 'd4' would run 4 levels below the top-level capsule, and delegation goes at most 3 levels deep; this capsule is at the last level, so it must do the work itself\n</untrusted-content>"
	if len(out) != 1 || out[0] != want {
		t.Errorf("d3's delegate-task result =\n%s", strings.Join(out, "\n"))
	}
}

// TestNotInstalled_DLG4: an allowed capsule no store holds fails the call
// (not a refusal: the referee allowed it), with a delegation id and record.
func TestNotInstalled_DLG4(t *testing.T) {
	w := newWorld(t)
	dir := w.put(t, capsule{name: "judge", caps: "  spawn:\n    allow: [local/ghost@0.1.0]\n", script: calls("ghost@0.1.0")})
	r, stderr, code := w.run(t, dir, "judge")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	out := toolOutputs(t, recs, "delegate-task")
	if len(out) != 1 || normalise(out[0]) != "<untrusted-content source=tool:delegate-task>\n"+
		`{"capsule":"ghost","delegation_id":"<dlg_1>","output":"capsule 'ghost@0.1.0' is not installed in the project or the global store","status":"failed","version":"0.1.0"}`+
		"\n</untrusted-content>" {
		t.Errorf("result = %q", out)
	}
	d := of[trace.Delegation](t, recs)
	if len(d) != 1 || d[0].Outcome != "failed" || d[0].DelegationID == nil || d[0].ChildSessionID != nil {
		t.Errorf("delegation = %+v", d)
	}
}

// TestRefereeContainment_DLG2: containment is a floor, which may only
// rise: under a scoped parent a child declaring advisory, or none, is
// refused.
func TestRefereeContainment_DLG2(t *testing.T) {
	testmur.NeedLandlock(t, 1, proc.LandlockABI) // a scoped parent
	w := newWorld(t)
	w.install(t, quick("loose", "  containment: advisory\n"), quick("silent", ""))
	refused(t, w, capsule{name: "judge",
		caps:   "  containment: scoped\n  spawn:\n    allow: [local/loose@0.1.0, local/silent@0.1.0]\n",
		script: calls("loose@0.1.0", "silent@0.1.0")},
		[]string{
			"capabilities.containment: the child declares 'advisory'" + envelopeTail,
			"capabilities.containment: the child declares '(none: whatever the host offers)'" + envelopeTail,
		})
}
