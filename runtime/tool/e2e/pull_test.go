package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

const pullerManifest = `name: puller
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
  max_turns: 8
capabilities:
  install:
    tool: ["murmur/*"]
trace:
  capture: content
`

// TestPullCallRemove_PULL3_PULL6_RMA1_RMA3 pulls a tool the global store
// holds, calls it on the next turn, lists a pattern, removes it and has the
// later calls refused, through the real mur binary.
func TestPullCallRemove_PULL3_PULL6_RMA1_RMA3(t *testing.T) {
	c := newCapsule(t, pullerManifest, `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: tool-edit, input: {path: early.txt}}
          - {name: pull-artifact, input: {artifact: "murmur/tool-edit"}}
      - tool_calls:
          - {name: tool-edit, input: {path: a.txt}}
          - {name: pull-artifact, input: {artifact: "murmur/*"}}
      - tool_calls:
          - {name: remove-artifact, input: {artifact: tool-edit}}
          - {name: tool-edit, input: {path: b.txt}}
      - tool_calls:
          - {name: tool-edit, input: {path: c.txt}}
          - {name: submit-plan, input: {id: p, steps: []}}
      - text: "done"
`)
	c.installGlobal(t, "tool-edit", "1.0.0")
	r, stderr, code := c.run(t, "edit the files")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	const removed = "tool 'tool-edit' was removed from this session; it can no longer be called"
	want := []call{
		{"tool-edit", "tool 'tool-edit' is not in this session's inventory", "error"},
		{"pull-artifact", "<untrusted-content source=tool:pull-artifact>\n" +
			`{"artifact":"murmur/tool-edit","fetched_from":"global store","runtime":"tool","tool_name":"tool-edit","version":"1.0.0"}` +
			"\n</untrusted-content>\ntool-edit is in your tool list from your next turn.", "ok"},
		{"tool-edit", "<untrusted-content source=tool:tool-edit>\nedited {\"path\":\"a.txt\"}\n\n</untrusted-content>", "ok"},
		{"pull-artifact", "<untrusted-content source=tool:pull-artifact>\n" +
			`{"matches":[{"artifact":"murmur/tool-edit","description":"Edits one file.","held_in":["global store"],"newest_fitting":"1.0.0","runtime":"tool","versions":["1.0.0"]}],"omitted":0,"pattern":"murmur/*"}` +
			"\n</untrusted-content>", "ok"},
		{"remove-artifact", "<untrusted-content source=tool:remove-artifact>\n" + `{"artifact":"murmur/tool-edit","removed":true}` +
			"\n</untrusted-content>\ntool-edit is gone from your tool list from your next turn; a call to it is refused.", "ok"},
		{"tool-edit", removed, "error"},
		{"tool-edit", removed, "error"},
		{"submit-plan", "tool 'submit-plan' does not exist in this session: it exists only when the capsule declares capabilities.plan.submit", "error"},
	}
	if got := calls(t, recs); !slices.Equal(got, want) {
		t.Errorf("tool calls:\n%q\nwant\n%q", got, want)
	}

	// PULL-6: artifact_pulled under the turn that pulled; tools_refreshed
	// (trigger agent) right before the next inference call, each time.
	pulled, pulledLines := of[trace.ArtifactPulled](t, recs), tracetest.Lines[trace.ArtifactPulled](recs)
	infs, infLines := of[trace.Inference](t, recs), tracetest.Lines[trace.Inference](recs)
	if len(pulled) != 1 || parent(pulledLines[0]) != infLines[0].EventID || pulled[0].Name != "murmur/tool-edit" ||
		pulled[0].Version != "1.0.0" || pulled[0].Runtime != "tool" || pulled[0].Session != r.SessionID {
		t.Errorf("artifact_pulled = %+v", pulled)
	}
	refreshed, refreshedLines := of[trace.ToolsRefreshed](t, recs), tracetest.Lines[trace.ToolsRefreshed](recs)
	if len(refreshed) != 2 {
		t.Fatalf("tools_refreshed = %+v", refreshed)
	}
	for i, w := range []struct {
		added, removed, tools string
		turn                  int
	}{
		{"tool-edit", "", "pull-artifact,remove-artifact,session-status,tool-edit", 1},
		{"", "tool-edit", "pull-artifact,remove-artifact,session-status", 3},
	} {
		rec := refreshed[i]
		if rec.Trigger != "agent" || strings.Join(rec.Added, ",") != w.added || strings.Join(rec.Removed, ",") != w.removed ||
			strings.Join(rec.Tools, ",") != w.tools || rec.Turn != w.turn || rec.TaskID == "" {
			t.Errorf("tools_refreshed[%d] = %+v", i, rec)
		}
		next := recs[index(recs, refreshedLines[i].EventID)+1]
		if inf, err := trace.As[trace.Inference](next); err != nil || inf.Turn != w.turn {
			t.Errorf("tools_refreshed[%d] is followed by %s, not the inference call of turn %v", i, next.Raw, w.turn)
		}
	}
	// The inventory sent: without tool-edit, with it from the next turn, then without.
	for i, has := range []bool{false, true, true, false, false} {
		tools := blob(t, r.RecordsDir, infs[i].ToolsSHA)
		if strings.Contains(tools, `"name":"tool-edit"`) != has {
			t.Errorf("turn %d's tools hold tool-edit: %v, want %v", i, !has, has)
		}
	}
	if sys := blob(t, r.RecordsDir, infs[0].SystemSHA); strings.Contains(sys, "[Plans]") {
		t.Errorf("plan guidance without capabilities.plan.submit:\n%s", sys)
	}

	// RMA-1: the lock entry and tools/tool-edit/ are gone; the pull had written both.
	lock, err := os.ReadFile(filepath.Join(c.dir, "murmur.lock"))
	if err != nil || string(lock) != "lock_version: 2\nartifacts: []\n" {
		t.Errorf("murmur.lock = %q, %v", lock, err)
	}
	if _, err := os.Stat(filepath.Join(runtimeDir(r), "tools", "tool-edit")); !os.IsNotExist(err) {
		t.Errorf("tools/tool-edit after the removal: %v", err)
	}
	for _, name := range []string{"pull-artifact", "remove-artifact", "session-status"} {
		if _, err := os.Stat(filepath.Join(runtimeDir(r), "tools", name, "murmur.yaml")); err != nil {
			t.Errorf("staged %s: %v", name, err)
		}
	}
}

// TestPullRefusals_PULL5 has each refusal reach the model as an unfenced
// tool error, and none write anything.
func TestPullRefusals_PULL5(t *testing.T) {
	c := newCapsule(t, pullerManifest, `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: pull-artifact, input: {artifact: "other/tool-edit"}}
          - {name: pull-artifact, input: {artifact: "tool-edit"}}
          - {name: pull-artifact, input: {artifact: "murmur/remove-artifact"}}
          - {name: pull-artifact, input: {artifact: "murmur/absent"}}
          - {name: pull-artifact, input: {artifact: "murmur/tool-edit@2.0.0"}}
          - {name: pull-artifact, input: {artifact: "murmur/tool-edit"}}
          - {name: pull-artifact, input: {artifact: "murmur/broken"}}
          - {name: pull-artifact, input: {artifact: "other/*"}}
          - {name: remove-artifact, input: {artifact: "murmur/tool-edit"}}
      - text: "refused"
`)
	c.installGlobal(t, "tool-edit", "1.0.0")
	c.installGlobal(t, "broken", "1.0.0")
	if err := os.WriteFile(filepath.Join(c.home, "artifacts", "broken", "1.0.0", "tree", "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pin := "lock_version: 2\nartifacts:\n  - name: tool-edit\n    resolved_version: 0.9.0\n    runtime: tool\n    sha256: " +
		strings.Repeat("0", 64) + "\n    origin: operator\n"
	c.write(t, "murmur.lock", pin)
	r, stderr, code := c.run(t, "pull")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	got := calls(t, records(t, r.RecordsDir))
	var b strings.Builder
	for _, cl := range got {
		if cl.status != "error" && cl.tool == "pull-artifact" || strings.Contains(cl.output, "<untrusted-content") && cl.status == "error" {
			t.Errorf("%s: %+v", cl.tool, cl)
		}
		b.WriteString(cl.tool + " → " + cl.output + "\n")
	}
	out := b.String()
	for _, want := range []string{
		"not-granted: other/tool-edit is outside this capsule's install grant (tools: murmur/*; skills: none)\n",
		"not-granted: 'tool-edit' is not a full name: name an artifact <scope>/<name>, optionally with @<version>, or give a pattern ending in *\n",
		"not-granted: E-CAP-013: artifact 'murmur/remove-artifact' collides with a tool the runtime provides itself; the reserved names are share-file, fetch-peer-file, delegate-task, submit-plan, switch-driver, call-member, end-without-answer, pull-artifact, remove-artifact, session-status, background-command\n",
		"not-found: no allowed place holds murmur/absent (looked in: project store, global store)\n",
		"not-found: no allowed place holds murmur/tool-edit@2.0.0 (looked in: project store, global store)\n",
		"pull-artifact → murmur.lock conflict for 'tool-edit': it pins 0.9.0@sha256:" + strings.Repeat("0", 64) + " (origin operator), but this pull is 1.0.0@sha256:",
		"pull-artifact → not-fetched: murmur/broken@1.0.0 in the global store could not be used: E-REG-002: broken@1.0.0 in the global store hashes to sha256:",
		"not-granted: the pattern 'other/*' reaches no name capabilities.install grants (tools: murmur/*; skills: none)\n",
		`remove-artifact → <untrusted-content source=tool:remove-artifact>` + "\n" + `{"artifact":"murmur/tool-edit","removed":false}` + "\n</untrusted-content>\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the tool results:\n%s", want, out)
		}
	}
	if lock, _ := os.ReadFile(filepath.Join(c.dir, "murmur.lock")); string(lock) != pin {
		t.Errorf("a refusal rewrote murmur.lock:\n%s", lock)
	}
	if recs := records(t, r.RecordsDir); len(of[trace.ArtifactPulled](t, recs)) != 0 || len(of[trace.ToolsRefreshed](t, recs)) != 0 {
		t.Error("a refusal wrote artifact_pulled or tools_refreshed")
	}
}
