package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// scaffoldCrew runs mur new --roster crew and installs both members
// globally (FCLI-9's Next: lines).
func scaffoldCrew(t *testing.T, w *world) {
	t.Helper()
	if _, errOut, code := w.run(t, ".", "new", "--roster", "crew"); code != 0 {
		t.Fatalf("mur new --roster crew: %d %s", code, errOut)
	}
	for _, m := range []string{"lead", "worker"} {
		if _, errOut, code := w.run(t, ".", "install", "-g", "crew/"+m); code != 0 {
			t.Fatalf("mur install -g crew/%s: %d %s", m, code, errOut)
		}
	}
}

// TestCrewEndToEnd: mur new --roster crew → install → doctor → mur run
// --roster crew --task … works end to end, and nothing is left running
// (FCLI-9, DOC-2, LAUNCH-1, FCLI-1, LIFE-3, TRC-2).
func TestCrewEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrew(t, w)
	out, errOut, code := w.run(t, "crew", "doctor")
	if code != 0 || !strings.HasSuffix(out, "  reachability: lead → worker\n\nAll checks passed.\n") {
		t.Fatalf("mur doctor = %d\n%s%s", code, out, errOut)
	}
	l := w.start(t, ".", "run", "--roster", "crew", "--task", "build the thing", "--json")
	fl := decode[formationLine](t, l.line(t))
	entry := decode[readiness](t, l.line(t))
	if code := l.wait(); code != 0 {
		t.Fatalf("launcher exit %d\n%s", code, l.stderr)
	}
	if fl.Entry != "lead" || len(fl.Peers) != 1 || fl.Peers[0].Name != "worker" || entry.FormationID != fl.FormationID {
		t.Fatalf("formation line %+v, entry %+v", fl, entry)
	}
	crew := filepath.Join(w.dir, "crew")
	if entry.Workdir != crew {
		t.Errorf("entry workdir = %s, want the project %s (DIR-1)", entry.Workdir, crew)
	}
	worker := fl.Peers[0]
	if worker.Workdir != filepath.Join(w.home, "formations", fl.FormationID, "worker") {
		t.Errorf("worker workdir = %s", worker.Workdir)
	}
	if left := goneWithin(0, worker.PID, entry.PID); len(left) > 0 {
		t.Errorf("still running after the launcher exited: %v", left)
	}
	traces, _ := filepath.Glob(filepath.Join(w.home, "records", strings.TrimPrefix(worker.Workdir, "/"), "ses_*", "trace.jsonl"))
	if len(traces) != 1 {
		t.Fatalf("worker traces: %v", traces)
	}
	endsWithFormationEnded(t, traces[0])
	if strings.Contains(l.stderr.String(), "eyJ") {
		t.Errorf("a token reached the launcher's stderr (LAUNCH-4):\n%s", l.stderr)
	}
	result, err := os.ReadFile(filepath.Join(entry.RecordsDir, "out", "result.txt"))
	if err == nil && string(result) != "worker did: build the thing" && callMemberUnbuilt(t, entry.RecordsDir) {
		// TODO(issue 4): drop once call-member (tools.md CALL) is in the session's tools.
		t.Skipf("call-member is not answered by this build yet; lead's result is %q", result)
	}
	if err != nil || string(result) != "worker did: build the thing" {
		t.Errorf("lead's result = %q, %v; want worker's answer", result, err)
	}
}

// callMemberUnbuilt reports whether the session staged no call-member: its
// session_start.tools_declared lacks it although it has a callee (CALL-1).
func callMemberUnbuilt(t *testing.T, recordsDir string) bool {
	t.Helper()
	f, err := os.Open(filepath.Join(recordsDir, "trace.jsonl"))
	if err != nil {
		return false
	}
	defer f.Close()
	var start struct {
		Tools   []string `json:"tools_declared"`
		Callees []string `json:"formation_callees"`
	}
	if json.NewDecoder(f).Decode(&start) != nil || len(start.Callees) == 0 {
		return false
	}
	return !slices.Contains(start.Tools, "call-member")
}

// TestKillLauncher: after kill -KILL of the launcher no member process
// remains within 30 s, and each member's trace holds formation_ended before
// session_end (LIFE-1, LIFE-5).
func TestKillLauncher(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrew(t, w)
	l := w.start(t, ".", "run", "--roster", "crew", "--json") // door mode: the entry waits
	fl := decode[formationLine](t, l.line(t))
	entry := decode[readiness](t, l.line(t))
	if err := l.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	l.wait()
	pids := []int{entry.PID}
	for _, p := range fl.Peers {
		pids = append(pids, p.PID)
	}
	if left := goneWithin(30*time.Second, pids...); len(left) > 0 {
		t.Fatalf("members still running 30 s after the launcher was killed: %v\n%s", left, l.stderr)
	}
	endsWithFormationEnded(t, filepath.Join(entry.RecordsDir, "trace.jsonl"))
	endsWithFormationEnded(t, filepath.Join(w.home, "records", strings.TrimPrefix(fl.Peers[0].Workdir, "/"), fl.Peers[0].SessionID, "trace.jsonl"))
}
