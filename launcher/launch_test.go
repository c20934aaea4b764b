package launcher

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/wire"
)

const crew = `roster_version: 1
members:
  - name: lead
    capsule: lead
    version: "1"
    entry: true
  - name: worker
    capsule: worker
    version: "1"
  - name: coder
    capsule: coder
    version: "1"
reachability:
  - from: lead
    to: [worker, coder]
  - from: worker
    to: [coder]
`

// TestLaunchTask: peers come up, callees' addresses arrive on the channel,
// the formation line is printed, the entry runs the task and its exit code
// is the launcher's; every member is reaped (LAUNCH-1, CHAN-3, FCLI-1, FCLI-4, LIFE-2).
func TestLaunchTask(t *testing.T) {
	t.Parallel()
	h := newHarness(t, crew, nil)
	task := "exit:7"
	h.cfg.Task = &task
	code := h.run(t)
	out, errOut := h.stdout.String(), h.stderr.String()
	if code != 7 {
		t.Fatalf("exit code = %d, want 7\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout holds %d lines, want the formation line and the entry's:\n%s", len(lines), out)
	}
	fl, err := wire.ParseFormation([]byte(lines[0]))
	if err != nil {
		t.Fatal(err)
	}
	if fl.Entry != "lead" || len(fl.Peers) != 2 || fl.Peers[0].Name != "worker" || fl.Peers[1].Name != "coder" {
		t.Fatalf("formation line = %s", lines[0])
	}
	dir := filepath.Join(h.cfg.Home, "formations", fl.FormationID)
	for _, p := range fl.Peers {
		if p.Workdir != filepath.Join(dir, p.Name) {
			t.Errorf("%s workdir = %s", p.Name, p.Workdir)
		}
		if fi, err := os.Stat(p.Workdir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, mode %v; want 0700 (DIR-1)", p.Workdir, err, fi.Mode())
		}
		// The entry looked its callees up: each address came on its channel.
		want := "[lookup] " + p.Name + " " + p.URL + " " + p.SessionID + " token-ok=true"
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	// The peers wound down on lifeline EOF, their output prefixed (LIFE-3,
	// LIFE-6), quietly: the launcher announced an orderly end.
	for _, name := range []string{"worker", "coder"} {
		if !strings.Contains(errOut, "["+name+"] [wound down]") {
			t.Errorf("stderr lacks %s's wind-down:\n%s", name, errOut)
		}
	}
	if strings.Contains(errOut, "formation lifeline closed") {
		t.Errorf("a member printed the lifeline alarm at an orderly end:\n%s", errOut)
	}
	if strings.Contains(errOut, "[leak]") {
		t.Errorf("a member held another descriptor (LAUNCH-3):\n%s", errOut)
	}
	if entry, err := wire.ParseReady([]byte(lines[1])); err != nil || entry.FormationID != fl.FormationID {
		t.Errorf("entry readiness line = %s (%v)", lines[1], err)
	}
	checkMarker(t, dir, h.project)
	assertGone(t, out, errOut)
}

func checkMarker(t *testing.T, dir, project string) {
	t.Helper()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v; want mode 0700 (LAUNCH-1 step 4)", d, err)
		}
	}
	path := filepath.Join(dir, murhome.MarkerFile)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v; want mode 0600 (DIR-2)", path, err)
	}
	b, _ := os.ReadFile(path)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(project)
	if m["project_dir"] != real || m["launcher_pid"] != float64(os.Getpid()) || m["launcher_start"] != "1" || len(m) != 3 {
		t.Errorf("formation.json = %s", b)
	}
}

// TestLaunchHumanBlock pins FCLI-2's block on stderr, and the entry's exit by
// a signal as 128 + signal (FCLI-4).
func TestLaunchHumanBlock(t *testing.T) {
	t.Parallel()
	h := newHarness(t, crew, nil)
	h.cfg.JSON = false
	task := "kill"
	h.cfg.Task = &task
	if code := h.run(t); code != 128+9 {
		t.Fatalf("exit code = %d, want 137\n%s", code, h.stderr.String())
	}
	got := normalize(h.stderr.String())
	want := "formation: frm_ID\n" +
		"  peer   worker  worker@1  pid N  ses_ID  http://127.0.0.1:PORT\n" +
		"                 workdir " + filepath.Join(h.cfg.Home, "formations", "frm_ID", "worker") + "\n" +
		"  peer   coder   coder@1  pid N  ses_ID  http://127.0.0.1:PORT\n" +
		"                 workdir " + filepath.Join(h.cfg.Home, "formations", "frm_ID", "coder") + "\n" +
		"  entry  lead    starting\n"
	if !strings.Contains(got, want) {
		t.Errorf("stderr lacks the block\n%s\ngot:\n%s", want, got)
	}
	if strings.Contains(h.stdout.String(), "frm_") {
		t.Errorf("stdout carries the formation in human mode: %s", h.stdout.String())
	}
	assertGone(t, h.stderr.String())
}

// TestLaunchSignal: a launcher signal closes every lifeline, the entry's
// too, and the launcher exits 128 + signal (LIFE-2, FCLI-4).
func TestLaunchSignal(t *testing.T) {
	t.Parallel()
	h := newHarness(t, crew, nil) // door mode: the entry waits for its lifeline
	up := h.stdout.when(`"name":"lead"`)
	done := make(chan int, 1) // Run's exit code
	go func() { done <- h.run(t) }()
	<-up
	h.sigs <- syscall.SIGHUP
	if code := <-done; code != 129 {
		t.Fatalf("exit code = %d, want 129", code)
	}
	errOut := h.stderr.String()
	if n := strings.Count(errOut, "[wound down]"); n != 3 || strings.Contains(errOut, "formation lifeline closed") {
		t.Errorf("%d members wound down, want 3, each without the lifeline alarm:\n%s", n, errOut)
	}
	assertGone(t, h.stdout.String(), errOut)
}

// TestLaunchDeadline hands --deadline to every member as an absolute
// Unix-ms moment (LAUNCH-8), and --no-env-file to every member.
func TestLaunchDeadline(t *testing.T) {
	t.Parallel()
	h := newHarness(t, crew, nil)
	task := "exit:0"
	h.cfg.Task = &task
	h.cfg.Deadline = time.UnixMilli(1893456000123)
	if code := h.run(t); code != 0 {
		t.Fatalf("exit code = %d\n%s", code, h.stderr.String())
	}
	if n := strings.Count(h.stderr.String(), "[deadline] 1893456000123"); n != 3 {
		t.Errorf("%d members got the deadline, want 3:\n%s", n, h.stderr.String())
	}
	assertGone(t, h.stdout.String())
}

// TestLaunchNoPeers: a roster of one makes no formation directory (DIR-1).
func TestLaunchNoPeers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "roster_version: 1\nmembers:\n  - {name: solo, capsule: pub-solo, version: '1', entry: true}\n", nil)
	task := "exit:0"
	h.cfg.Task = &task
	if code := h.run(t); code != 0 {
		t.Fatalf("exit code = %d\n%s", code, h.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(h.cfg.Home, "formations")); !os.IsNotExist(err) {
		t.Errorf("formations dir: %v, want none", err)
	}
	fl, err := wire.ParseFormation([]byte(strings.SplitN(h.stdout.String(), "\n", 2)[0]))
	if err != nil || len(fl.Peers) != 0 || fl.Peers == nil {
		t.Errorf("formation line = %q (%v); want \"peers\":[]", h.stdout.String(), err)
	}
}

// TestLaunchPublicDoors: with no edges, peers may be public and are probed
// by their public card (READY-2).
func TestLaunchPublicDoors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "roster_version: 1\nmembers:\n  - {name: lead, capsule: pub-lead, version: '1', entry: true}\n  - {name: w, capsule: pub-w, version: '1'}\n", nil)
	task := "exit:0"
	h.cfg.Task = &task
	if code := h.run(t); code != 0 {
		t.Fatalf("exit code = %d\n%s", code, h.stderr.String())
	}
	assertGone(t, h.stdout.String())
}

// TestLaunchRefusedCreatesNothing: a refused roster starts nothing and
// makes no directory (ADM-1, LAUNCH-1 step 2).
func TestLaunchRefusedCreatesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, strings.Replace(crew, "to: [coder]", "to: [lead]", 1), nil)
	if code := h.run(t); code != 1 {
		t.Fatalf("exit code = %d", code)
	}
	if !strings.HasPrefix(h.stderr.String(), "error[E-ROS-008]: ") || h.stdout.String() != "" {
		t.Errorf("stderr = %q, stdout = %q", h.stderr.String(), h.stdout.String())
	}
	if ents, _ := os.ReadDir(h.cfg.Home); len(ents) != 0 {
		t.Errorf("$MURMUR_HOME holds %v", ents)
	}
}

// TestCapacityWarningPrefixed: W-ROS-001 goes to stderr prefixed (LAUNCH-1 step 2).
func TestCapacityWarningPrefixed(t *testing.T) {
	t.Parallel()
	single := roster.Facts{Acceptance: "single", QueueDepth: 1, PeerTasks: true, Authenticated: true}
	h := newHarness(t, crew, map[string]roster.Facts{"coder": single})
	task := "exit:0"
	h.cfg.Task = &task
	if code := h.run(t); code != 0 {
		t.Fatalf("exit code = %d\n%s", code, h.stderr.String())
	}
	want := "[mur run] warning[W-ROS-001]: roster.yaml lets 2 members call 'coder' (lead, worker), but it holds 1 task(s) at once — task_acceptance: single — so a call that arrives while it is full is rejected; lifecycle.queue_depth: 1 would hold them all\n"
	if !strings.HasPrefix(h.stderr.String(), want) {
		t.Errorf("stderr = %q\nwant prefix %q", h.stderr.String(), want)
	}
}

// TestSecondSignalCutsGrace: a further launcher signal during teardown ends
// the grace at once; the stubborn peer's group is SIGKILLed and reaped. With
// an hour of grace, the test ends only if the second signal works.
func TestSecondSignalCutsGrace(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "roster_version: 1\nmembers:\n  - {name: lead, capsule: lead, version: '1', entry: true}\n  - {name: s, capsule: stubborn, version: '1'}\n", nil)
	h.grace = time.Hour
	up := h.stdout.when(`"name":"lead"`)
	done := make(chan int, 1) // Run's exit code
	go func() { done <- h.run(t) }()
	<-up
	h.sigs <- syscall.SIGTERM
	h.sigs <- syscall.SIGTERM
	if code := <-done; code != 143 {
		t.Fatalf("exit code = %d, want 143", code)
	}
	assertGone(t, h.stdout.String(), h.stderr.String())
}
