package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
)

// scaffoldCrew runs mur new --roster crew and installs both members into
// crew's project store, as its Next: lines say.
func scaffoldCrew(t *testing.T, w *world) {
	t.Helper()
	out, errOut, code := w.run(t, ".", "new", "--roster", "crew")
	if code != 0 {
		t.Fatalf("mur new --roster crew: %d %s", code, errOut)
	}
	if want := "Next:\n  cd crew\n  mur install lead\n  mur install worker\n  mur run --roster . --task \"<your task>\"\n"; !strings.HasSuffix(out, want) {
		t.Fatalf("mur new --roster crew printed\n%s\nwant it to end\n%s", out, want)
	}
	for _, m := range []string{"lead", "worker"} {
		if _, errOut, code := w.run(t, "crew", "install", m); code != 0 {
			t.Fatalf("mur install %s in crew: %d %s", m, code, errOut)
		}
	}
}

// scaffoldCrewGlobal runs mur new --roster crew and installs both members
// into the global store instead, for a test whose roster lives outside crew
// and names them from there.
func scaffoldCrewGlobal(t *testing.T, w *world) {
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
	if strings.Contains(l.stderr.String(), "formation lifeline closed") {
		t.Errorf("quiet success: a member printed the lifeline alarm at the formation's orderly end:\n%s", l.stderr)
	}
	result, err := os.ReadFile(filepath.Join(entry.RecordsDir, "out", "result.txt"))
	if err != nil || string(result) != "worker did: build the thing" {
		t.Errorf("lead's result = %q, %v; want worker's answer", result, err)
	}
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
	// A launcher that died announced nothing: the entry, which writes to
	// the launcher's own stderr, raises the alarm (LIFE-3).
	if !strings.Contains(l.stderr.String(), "[capsule-runtime] formation lifeline closed — the formation has ended; cancelling live tasks and ending the session\n") {
		t.Errorf("the entry did not print the lifeline alarm after the launcher died:\n%s", l.stderr)
	}
}

// TestLauncherSurvivesClosedStderr: a launcher whose stderr reader has gone
// away (mur run --roster … 2>&1 | head -1) still runs the formation to its
// end and exits with the entry's code, not of SIGPIPE (capsule.md CLI-4,
// FCLI-4); nothing is left running.
func TestLauncherSurvivesClosedStderr(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrew(t, w)
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // every write to the launcher's stderr now fails with EPIPE
	cmd := exec.Command(mur, "run", "--roster", "crew", "--task", "build the thing", "--json")
	cmd.Dir, cmd.Env, cmd.Stderr = w.dir, w.env(), wr
	var out bytes.Buffer
	cmd.Stdout = &out
	err = testmur.RunCmd(cmd)
	wr.Close()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("launcher with a closed stderr = %v; want exit 0\nstdout:\n%s", ee, &out)
	} else if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout = %q; want the formation line and the entry's readiness line", &out)
	}
	fl, entry := decode[formationLine](t, lines[0]), decode[readiness](t, lines[1])
	pids := []int{entry.PID}
	for _, p := range fl.Peers {
		pids = append(pids, p.PID)
	}
	if left := goneWithin(0, pids...); len(left) > 0 {
		t.Errorf("still running after the launcher exited: %v", left)
	}
}

// TestMemberShellKeepsSIGPIPE: a member survives a closed stream by catching
// SIGPIPE, not ignoring it, so the commands its shell runs start with SIGPIPE
// at its default — as `yes | head -1` needs (LIFE-6; an ignored signal is
// inherited across exec).
func TestMemberShellKeepsSIGPIPE(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	src := filepath.Join(w.dir, "src", "e2e-shell")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "murmur.yaml"), []byte("name: e2e-shell\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\ncapabilities:\n  shell:\n    allow: [bash]\n"), 0o644)
	os.WriteFile(filepath.Join(src, "script.yaml"), []byte("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: bash, input: {command: \"grep SigIgn /proc/self/status\"}}]\n      - text: \"{{tool_result}}\"\n"), 0o644)
	if _, errOut, code := w.run(t, ".", "install", "-g", src); code != 0 {
		t.Fatalf("install: %s", errOut)
	}
	writeRoster(t, w, "sh", "roster_version: 1\nmembers:\n  - {name: only, capsule: e2e-shell, version: \"0.1.0\", entry: true}\n")
	out, errOut, code := w.run(t, "sh", "run", "--roster", "--task", "go", "--json")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("mur run --roster = %d\n%s%s", code, out, errOut)
	}
	entry := decode[readiness](t, lines[1])
	result, err := os.ReadFile(filepath.Join(entry.RecordsDir, "out", "result.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, mask, ok := strings.Cut(string(result), "SigIgn:\t")
	if !ok || len(mask) < 16 {
		t.Fatalf("result = %q; want the shell's SigIgn line", result)
	}
	ignored, err := strconv.ParseUint(mask[:16], 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	if ignored&(1<<(uint(syscall.SIGPIPE)-1)) != 0 {
		t.Errorf("the member's shell command starts with SIGPIPE ignored (SigIgn %s)", mask[:16])
	}
}
