package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// TestUngranted_TOOL4: the grant is the tool's existence (seed 000, tools.md
// TOOL-3, TOOL-4). A capsule declaring none of exports.peer_files,
// capabilities.peer_fetch and capabilities.spawn.allow is not offered
// share-file, fetch-peer-file or delegate-task — they are neither in the
// inventory its model is sent nor in session_start.tools_declared — and a
// call naming each anyway is refused with a message naming the declaration
// that is missing, starting nothing.
func TestUngranted_TOOL4(t *testing.T) {
	w := newWorld(t)
	w.install(t, quick("worker", ""))
	dir := w.put(t, capsule{name: "plain", caps: "  shell:\n    allow: [bash]\n", script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: share-file, input: {path: a.txt}}
          - {name: fetch-peer-file, input: {handle: mph_x}}
          - {name: delegate-task, input: {capsule: worker, version: "0.1.0", task: "work"}}
      - text: "PLAIN-DONE"
`})
	r, stderr, code := w.run(t, dir, "go")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	want := map[string]string{
		"share-file":      "tool 'share-file' does not exist in this session: it exists only when the capsule declares exports.peer_files",
		"fetch-peer-file": "tool 'fetch-peer-file' does not exist in this session: it exists only when the capsule declares capabilities.peer_fetch",
		"delegate-task":   "tool 'delegate-task' does not exist in this session: it exists only when the capsule declares capabilities.spawn.allow non-empty",
	}
	tcs := of[trace.ToolCall](t, recs)
	if len(tcs) != len(want) {
		t.Fatalf("%d tool calls, want %d", len(tcs), len(want))
	}
	for _, tc := range tcs {
		got := ""
		if tc.Output != nil {
			got = *tc.Output
		}
		if got != want[tc.ToolName] || tc.Status != "error" {
			t.Errorf("%s: status %s, result %q\nwant error, %q", tc.ToolName, tc.Status, got, want[tc.ToolName])
		}
	}
	declared := of[trace.SessionStart](t, recs)[0].ToolsDeclared
	infs := of[trace.Inference](t, recs)
	if len(infs) == 0 {
		t.Fatal("no inference records")
	}
	inventory, err := os.ReadFile(filepath.Join(r.RecordsDir, "blobs", infs[0].ToolsSHA))
	if err != nil {
		t.Fatal(err)
	}
	for name := range want {
		if slices.Contains(declared, name) {
			t.Errorf("session_start.tools_declared %v holds %s", declared, name)
		}
		if strings.Contains(string(inventory), `"name":"`+name+`"`) {
			t.Errorf("the inventory sent holds %s:\n%s", name, inventory)
		}
	}
	if !strings.Contains(string(inventory), `"name":"bash"`) {
		t.Errorf("the inventory sent lacks bash, so the check above proves nothing:\n%s", inventory)
	}
	if n := len(of[trace.Delegation](t, recs)) + len(of[trace.DelegationStart](t, recs)); n != 0 {
		t.Errorf("%d delegation records for a call that was refused as no tool", n)
	}
	if _, err := os.Stat(filepath.Join(r.Workdir, ".murmur", "children")); !os.IsNotExist(err) {
		t.Errorf("a call to a tool that does not exist made .murmur/children: %v", err)
	}
}
