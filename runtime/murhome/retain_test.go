package murhome

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
)

// fixture is one records group with its workdir and some sessions, each with
// a records directory (holding a trace) and a runtime directory.
type fixture struct {
	home, workdir, group string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := testmur.TempDir(t)
	f := &fixture{home: filepath.Join(root, "home"), workdir: filepath.Join(root, "proj")}
	mkdir(t, f.workdir)
	var err error
	if f.group, err = GroupDir(f.home, f.workdir); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) add(t *testing.T, ids ...string) {
	t.Helper()
	for _, id := range ids {
		mkdir(t, filepath.Join(f.group, id, "logs"))
		os.WriteFile(filepath.Join(f.group, id, TraceFile), []byte("{}\n"), 0o600)
		ro := filepath.Join(f.workdir, ".murmur", id, "plans")
		mkdir(t, ro)
		os.WriteFile(filepath.Join(ro, "plan-1.json"), []byte("{}"), 0o600)
		os.Chmod(ro, 0o500) // the agent may leave a directory unwritable
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
	}
}

func (f *fixture) exists(id string) (records, runtime bool) {
	_, e1 := os.Stat(filepath.Join(f.group, id))
	_, e2 := os.Stat(filepath.Join(f.workdir, ".murmur", id))
	return e1 == nil, e2 == nil
}

func (f *fixture) runningRecord(t *testing.T, id string, pid int, start string) {
	t.Helper()
	err := WriteRunning(f.home, &Running{SessionID: id, PID: pid, ProcessStart: start, StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRetainMaxSessionsNeverRemovedSES9(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	old1, old2, old3, old4, old5 := sesAt(now.Add(-50*time.Minute), 1), sesAt(now.Add(-40*time.Minute), 1),
		sesAt(now.Add(-30*time.Minute), 1), sesAt(now.Add(-20*time.Minute), 1), sesAt(now.Add(-15*time.Minute), 1)
	cur, later := sesAt(now.Add(-10*time.Minute), 1), sesAt(now.Add(-5*time.Minute), 1)
	f.add(t, old1, old2, old3, old4, old5, cur, later)

	self := os.Getpid()
	selfStart, err := StartTime(self)
	if err != nil {
		t.Fatal(err)
	}
	f.runningRecord(t, old2, self, selfStart)     // live: kept
	f.runningRecord(t, old3, self, "")            // may be live (start unknown): kept
	f.runningRecord(t, old4, self, selfStart+"9") // pid reused: retired
	f.runningRecord(t, old5, 1<<22+7, "1")        // pid gone: retired

	got, err := Retain(RetainConfig{Home: f.home, Workdir: f.workdir, Current: cur, MaxSessions: 1, Now: now})
	if err != nil {
		t.Fatalf("Retain() error = %v", err)
	}
	want := []Removal{{Store: "records", Reason: "max_sessions", Removed: []string{old5, old4, old1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Retain() = %+v, want %+v", got, want)
	}
	for _, id := range []string{cur, later, old2, old3} {
		if rec, rt := f.exists(id); !rec || !rt {
			t.Errorf("%s removed (records %v, runtime %v), want kept", id, rec, rt)
		}
	}
	for _, id := range []string{old1, old4, old5} {
		if rec, rt := f.exists(id); rec || rt {
			t.Errorf("%s kept (records %v, runtime %v), want both directories removed", id, rec, rt)
		}
	}
}

func TestRetainMaxAgeAndBothSES9(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ancient := sesAt(now.Add(-72*time.Hour), 1)
	old := sesAt(now.Add(-25*time.Hour), 1)
	mid := sesAt(now.Add(-2*time.Hour), 1)
	recent := sesAt(now.Add(-1*time.Hour), 1)
	cur := sesAt(now, 1)
	f.add(t, ancient, old, mid, recent, cur)

	got, err := Retain(RetainConfig{Home: f.home, Workdir: f.workdir, Current: cur, MaxSessions: 2, MaxAge: 24 * time.Hour, Now: now})
	if err != nil {
		t.Fatalf("Retain() error = %v", err)
	}
	want := []Removal{
		{Store: "records", Reason: "max_sessions", Removed: []string{mid}},
		{Store: "records", Reason: "max_age", Removed: []string{old, ancient}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Retain() = %+v, want %+v", got, want)
	}
	if rec, _ := f.exists(recent); !rec {
		t.Errorf("%s removed, want kept (2 newest, current included)", recent)
	}
}

func TestRetainMaxAgeOnlySES9(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	old, young, cur := sesAt(now.Add(-2*time.Hour), 1), sesAt(now.Add(-30*time.Minute), 1), sesAt(now, 1)
	f.add(t, old, young, cur)
	got, err := Retain(RetainConfig{Home: f.home, Workdir: f.workdir, Current: cur, MaxAge: time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := []Removal{{Store: "records", Reason: "max_age", Removed: []string{old}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Retain() = %+v, want %+v", got, want)
	}
}

func TestRetainNothingToDoSES9(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := time.Now()
	a, cur := sesAt(now.Add(-time.Minute), 1), sesAt(now, 1)
	f.add(t, a, cur)
	for _, cfg := range []RetainConfig{
		{Home: f.home, Workdir: f.workdir, Current: cur},                              // no policy
		{Home: f.home, Workdir: f.workdir, Current: cur, MaxSessions: 5},              // under the count
		{Home: f.home, Workdir: f.workdir, Current: cur, MaxAge: time.Hour, Now: now}, // nothing that old
	} {
		got, err := Retain(cfg)
		if err != nil || len(got) != 0 {
			t.Errorf("Retain(%+v) = %+v, %v; want nothing", cfg, got, err)
		}
	}
	if rec, _ := f.exists(a); !rec {
		t.Error("a session was removed with nothing over the policy")
	}
}

// TestRetainUnreadableRunningDirSES9: every session counts as running.
func TestRetainUnreadableRunningDirSES9(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := time.Now()
	a, cur := sesAt(now.Add(-time.Hour), 1), sesAt(now, 1)
	f.add(t, a, cur)
	mkdir(t, f.home)
	if err := os.WriteFile(RunningDir(f.home), []byte("x"), 0o600); err != nil { // not a directory
		t.Fatal(err)
	}
	got, err := Retain(RetainConfig{Home: f.home, Workdir: f.workdir, Current: cur, MaxSessions: 1})
	if err == nil || !strings.Contains(err.Error(), "every session counts as running") || len(got) != 0 {
		t.Errorf("Retain() = %+v, %v; want nothing removed and an error", got, err)
	}
	if rec, _ := f.exists(a); !rec {
		t.Error("a session was removed although running records could not be read")
	}
}
