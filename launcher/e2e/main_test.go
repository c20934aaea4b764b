package e2e

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/wire"
)

// mur is the real binary, built once by TestMain.
var mur string

func TestMain(m *testing.M) { os.Exit(testmur.Run(m, testmur.Mur, &mur)) }

// world is one test's $MURMUR_HOME and working directory, symlinks resolved.
type world struct {
	home, dir string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{}
	w.dir, w.home = testmur.Dirs(t, "work")
	return w
}

func (w *world) env() []string { return testmur.Env(w.home) }

// run runs mur in dir (relative to the world's directory) to completion.
func (w *world) run(t testing.TB, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(mur, args...)
	cmd.Dir = filepath.Join(w.dir, dir)
	cmd.Env = w.env()
	return testmur.Exec(t, cmd)
}

// launch is a `mur run --roster … --json` running in the background,
// started through testmur.StartLines.
type launch struct {
	*testmur.Lines
	cmd    *exec.Cmd
	lines  <-chan string // stdout lines, in order; closed at EOF
	stderr *testmur.Buffer
	done   <-chan struct{} // closed once the launcher is reaped
}

func (w *world) start(t testing.TB, dir string, args ...string) *launch {
	t.Helper()
	return w.startWith(t, mur, dir, args...)
}

// startWith is start with another mur binary (a benchmark's baseline).
func (w *world) startWith(t testing.TB, bin, dir string, args ...string) *launch {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Join(w.dir, dir)
	cmd.Env = w.env()
	ln := testmur.StartLines(t, cmd)
	return &launch{Lines: ln, cmd: cmd, lines: ln.C(), stderr: ln.Stderr, done: ln.Done()}
}

// line returns the next stdout line, failing the test at EOF.
func (l *launch) line(t testing.TB) string {
	t.Helper()
	return l.Line(t)
}

// wait reaps the launcher and returns its exit code.
func (l *launch) wait() int { return l.Wait() }

// formationLine is FCLI-1's line.
type formationLine = wire.Formation

// readiness is capsule.md CLI-4's line.
type readiness = wire.Ready

func decode[T any](t testing.TB, line string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatalf("decode %q: %v", line, err)
	}
	return v
}

// goneWithin polls until every pid is gone or d has passed, then reports
// the pids still alive. LIFE-5 bounds a formation's end at 30 s; there is no
// event for a foreign process's exit, so it is looked at again and again.
func goneWithin(d time.Duration, pids ...int) []int {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var left []int
		for _, p := range pids {
			if testmur.Alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		<-tick.C
	}
}

// traceEvents lists the event types of a trace.jsonl, in order.
func traceEvents(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	dec := json.NewDecoder(f)
	for {
		var ev struct {
			EventType string `json:"event_type"`
		}
		if err := dec.Decode(&ev); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, ev.EventType)
	}
}

// endsWithFormationEnded checks LIFE-3/TRC-2: formation_ended comes before
// session_end, and session_end is the last record.
func endsWithFormationEnded(t *testing.T, path string) {
	t.Helper()
	evs := traceEvents(t, path)
	fe, se := -1, -1
	for i, e := range evs {
		switch e {
		case "formation_ended":
			fe = i
		case "session_end":
			se = i
		}
	}
	if fe < 0 || se < 0 || fe > se || se != len(evs)-1 {
		t.Errorf("%s: events %v; want formation_ended before a final session_end", path, evs)
	}
}
