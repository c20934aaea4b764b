package view

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/trace"
)

// The studio formation of testdata/studio, recorded by a real run of
// examples/studio (mur run --roster . --task "Write a Go function that
// reverses a string").
const (
	studioFrm      = "frm_01a233762c3e7031b22ec3927351e056"
	studioPlanner  = "ses_01a233762cba703ab3ca9033df6fb84e"
	studioCoder    = "ses_01a233762c5270889a92fa2de79957ec"
	studioReviewer = "ses_01a233762c5471ab9eb0c9cd0b0abae8"
	studioTask     = "tsk_01a233762cc770f38bc8157e8437ffc4" // planner's
)

// studioHome lays the recorded formation out as a run leaves it (formations.md
// DIR-1, DIR-2): the peers' records under the formation directory's group,
// the entry's under the project's, formation.json naming the project, no
// running record. It returns $MURMUR_HOME.
func studioHome(t *testing.T) string {
	t.Helper()
	root := testmur.TempDir(t)
	home, project := filepath.Join(root, "home"), filepath.Join(root, "studio")
	frmDir := filepath.Join(home, "formations", studioFrm)
	put := func(dir, member string) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join("testdata", "studio", member+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "trace.jsonl"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	group := func(dir string) string { return filepath.Join(home, "records", strings.TrimPrefix(dir, "/")) }
	for m, ses := range map[string]string{"coder": studioCoder, "reviewer": studioReviewer} {
		if err := os.MkdirAll(filepath.Join(frmDir, m), 0o700); err != nil {
			t.Fatal(err)
		}
		put(filepath.Join(group(filepath.Join(frmDir, m)), ses), m)
	}
	put(filepath.Join(group(project), studioPlanner), "planner")
	marker, _ := json.Marshal(murhome.Marker{ProjectDir: project, LauncherPID: 0, LauncherStart: ""})
	if err := os.WriteFile(filepath.Join(frmDir, "formation.json"), marker, 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func newStudioView(t *testing.T) *View {
	t.Helper()
	v, err := New(Config{Home: studioHome(t), Target: Target{KindFormation, studioFrm}, Token: "tok"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return v
}

func indent(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestReplayEndedFormation: an ended formation is replayed from its records
// alone: three members, entry first, each ended ok with its capsule@version
// and the roster's edges; three calls, each started then completed; four
// tasks, each linked to the call that sent it.
func TestReplayEndedFormation(t *testing.T) {
	t.Parallel()
	v := newStudioView(t)
	v.m.mu.Lock()
	s := v.m.snapshot()
	v.m.mu.Unlock()
	golden.Check(t, "studio-snapshot", indent(t, s))
	if s.Live {
		t.Error("snapshot of an ended formation says live")
	}
	var got []string
	for _, m := range s.Members {
		got = append(got, m.Name+" "+m.Capsule+"@"+m.Version+" "+m.State+" "+m.Exit)
	}
	if strings.Join(got, "; ") != "planner studio-planner@0.1.0 ended ok; coder studio-coder@0.1.0 ended ok; reviewer studio-reviewer@0.1.0 ended ok" {
		t.Errorf("members = %q", got)
	}
	for _, c := range s.Calls {
		if len(c.History) != 2 || c.History[0].State != "started" || c.History[1].State != "completed" || c.MemberTaskID == "" {
			t.Errorf("call %s %s→%s history %+v, member task %q", c.ID, c.From, c.To, c.History, c.MemberTaskID)
		}
	}
	for _, tk := range s.Tasks {
		if tk.State != "completed" || tk.Member != "planner" && (tk.Caller == "" || tk.CallID == "") {
			t.Errorf("task %s of %s: state %s, caller %q, call %q", tk.ID, tk.Member, tk.State, tk.Caller, tk.CallID)
		}
	}
}

// TestTimelineOfStudioTask: planner's task timeline lists its turns with
// latency and tokens, its two call-member tool calls, both member calls
// started and completed, the two waits for answers, and its end.
func TestTimelineOfStudioTask(t *testing.T) {
	t.Parallel()
	v := newStudioView(t)
	tl, err := v.m.timeline("planner", studioTask)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "studio-timeline", indent(t, tl))
	if _, err := v.m.timeline("planner", "tsk_nope"); err != errNoTask {
		t.Errorf("timeline of an unknown task: %v, want errNoTask", err)
	}
}

// TestReplayUnderLinkedHome: with $MURMUR_HOME reached through a symbolic
// link, the peers' records are still found where their sessions put them,
// under the records form of the formation directory (symlinks resolved,
// capsule.md SES-3, formations.md RET-1), not under the path as written.
func TestReplayUnderLinkedHome(t *testing.T) {
	t.Parallel()
	home := studioHome(t)
	link := filepath.Join(filepath.Dir(home), "home-link")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	v, err := New(Config{Home: link, Target: Target{KindFormation, studioFrm}, Token: "tok"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	v.m.mu.Lock()
	s := v.m.snapshot()
	v.m.mu.Unlock()
	var got []string
	for _, m := range s.Members {
		got = append(got, m.Name+" "+m.State)
	}
	if strings.Join(got, "; ") != "planner ended; coder ended; reviewer ended" {
		t.Errorf("members under a linked home = %q, want planner, coder and reviewer, ended", got)
	}
}

// TestTimelineMarksDeniedCall: a call a policy hook refused is on its
// task's timeline as denied, naming the hook, the decision point and the
// reason (docs/hooks.md).
func TestTimelineMarksDeniedCall(t *testing.T) {
	t.Parallel()
	r := &record{body: trace.CallDenied{Turn: 2, TaskID: "tsk_1", Event: "on-shell", HookName: "guard", Target: "/usr/bin/sh", Reason: "destructive command"}}
	if r.taskID() != "tsk_1" {
		t.Errorf("taskID = %q", r.taskID())
	}
	it, ok := item(r, 0)
	if !ok || it.Title != "turn 2 · denied /usr/bin/sh" || it.Status != "denied" || it.Detail != "guard at on-shell: destructive command" || it.Turn == nil || *it.Turn != 2 {
		t.Errorf("item = %+v, %v", it, ok)
	}
}

// TestTimelineMarksCompaction: a compaction is on its task's timeline at
// its turn, naming its hook and the sizes before and after; a declined one
// names its reason (docs/hooks.md); the compactor's summary call is the
// hook's call, not a turn of the agent's.
func TestTimelineMarksCompaction(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body                  trace.Record
		title, status, detail string
	}{
		{trace.Compaction{Turn: 5, TaskID: "tsk_1", HookName: "murmur-hook-compact", TokensBefore: 13580, TokensBeforeSource: "estimate", TokensAfter: 2955},
			"turn 5 · compaction (murmur-hook-compact)", "compacted", "13580 → 2955 tokens (estimate count before)"},
		{trace.Compaction{Turn: 3, TaskID: "tsk_1", HookName: "claude", TokensBefore: 155331, TokensBeforeSource: "harness", Source: "harness", Trigger: "auto"},
			"turn 3 · compaction (claude)", "compacted", "155331 tokens before (the harness's own, auto)"},
		{trace.CompactionDeclined{Turn: 7, TaskID: "tsk_1", Tokens: 14000, Reason: "unresolved_tool_call"},
			"turn 7 · compaction declined", "declined", "unresolved_tool_call at 14000 tokens"},
		{trace.Inference{Turn: 5, TaskID: "tsk_1", Choice: "primary", Decision: "end_turn", Origin: "hook:murmur-hook-compact"},
			"turn 5 · hook:murmur-hook-compact call (primary)", "end_turn", ""},
	} {
		r := &record{body: c.body}
		if r.taskID() != "tsk_1" {
			t.Errorf("%s: taskID = %q", c.body.EventType(), r.taskID())
		}
		it, ok := item(r, 0)
		if !ok || it.Title != c.title || it.Status != c.status || it.Detail != c.detail || it.Turn == nil {
			t.Errorf("item = %+v, %v; want %q %q %q", it, ok, c.title, c.status, c.detail)
		}
	}
}
