package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
	"github.com/murmur-go/mur/runtime/wire"
)

// mur is the real binary, built once by TestMain.
var mur string

func TestMain(m *testing.M) { os.Exit(testmur.Run(m, testmur.Mur, &mur)) }

// world is one test's directory: the parent capsules live under dir (each
// its own project), sub-capsules are installed into home's global store.
type world struct {
	dir, home string
	env       []string // extra environment for mur
}

func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{}
	w.dir, w.home = testmur.Dirs(t, "w")
	return w
}

func (w *world) environ() []string { return testmur.Env(w.home, w.env...) }

// write writes a file under the world's directory.
func (w *world) write(t testing.TB, rel, text string) string {
	t.Helper()
	path := filepath.Join(w.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// unconfined is the capabilities body of a child whose shell meets the test
// on a named pipe outside its workdir, or reads its own process's
// environment: bash, with the advisory containment class, since a scoped
// session's tool processes reach only their workdir (Landlock).
const unconfined = "  shell:\n    allow: [bash]\n  containment: advisory\n"

// capsule is one capsule: caps is its capabilities block's body (indented
// two spaces), extra more top-level blocks, script its scripted driver's.
type capsule struct {
	name, caps, extra, script string
	maxTurns                  int // 0 means 8
}

// manifest is c's murmur.yaml.
func (c capsule) manifest() string {
	turns := c.maxTurns
	if turns == 0 {
		turns = 8
	}
	caps := ""
	if c.caps != "" {
		caps = "capabilities:\n" + c.caps
	}
	return fmt.Sprintf("name: %s\nversion: \"0.1.0\"\ninference:\n  driver:\n    kind: scripted\n    script: script.yaml\n  max_turns: %d\n%s%strace:\n  capture: content\n",
		c.name, turns, caps, c.extra)
}

// put writes c under <dir>/<name>/ and returns that directory.
func (w *world) put(t testing.TB, c capsule) string {
	t.Helper()
	w.write(t, c.name+"/murmur.yaml", c.manifest())
	w.write(t, c.name+"/script.yaml", c.script)
	return filepath.Join(w.dir, c.name)
}

// install puts each capsule and installs it into the global store (mur
// install -g, capsule.md CLI-6): where a parent's children come from.
func (w *world) install(t testing.TB, caps ...capsule) {
	t.Helper()
	for _, c := range caps {
		dir := w.put(t, c)
		cmd := exec.Command(mur, "install", "-g", dir)
		cmd.Dir, cmd.Env = w.dir, w.environ()
		if out, err := testmur.Combined(cmd); err != nil {
			t.Fatalf("mur install -g %s: %v\n%s", c.name, err, out)
		}
	}
}

// readiness is mur run's --json line (capsule.md CLI-4).
type readiness = wire.Ready

// command is `mur run --capsule <dir> --json args…` in a session of its own,
// so that every process it starts can be found (noneLeft).
func (w *world) command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(mur, append([]string{"run", "--capsule", dir, "--json"}, args...)...)
	cmd.Dir, cmd.Env = w.dir, w.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

// start starts w.command(dir, args…) and reads its readiness line; the
// command's stderr is kept in the returned buffer. A command that prints
// no readiness line is killed with its session and fails the test.
func (w *world) start(t testing.TB, dir string, args ...string) (*exec.Cmd, readiness, *testmur.Buffer) {
	t.Helper()
	cmd := w.command(dir, args...)
	stderr := &testmur.Buffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	var r readiness
	if b, _ := bufio.NewReader(out).ReadString('\n'); !decodeInto(b, &r) {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		t.Fatalf("readiness line %q; stderr:\n%s", b, stderr.String())
	}
	return cmd, r, stderr
}

// run runs the parent capsule in dir with task to its end and proves it
// left no process behind.
func (w *world) run(t testing.TB, dir, task string, args ...string) (r readiness, stderr string, code int) {
	t.Helper()
	cmd := w.command(dir, append([]string{"--task", task}, args...)...)
	stdout, stderr, code := testmur.Exec(t, cmd)
	noneLeft(t, cmd.Process.Pid)
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("readiness line %q (exit %d, stderr %s): %v", stdout, code, stderr, err)
	}
	return r, stderr, code
}

// records reads a session's trace.jsonl, every line checked against its
// record type (runtime/trace/tracetest).
var records = tracetest.Records

// of decodes a trace's records of type T, in file order.
func of[T trace.Record](t testing.TB, recs []trace.Line) []T {
	t.Helper()
	return tracetest.OfType[T](t, recs)
}

// toolOutputs are the contents the model got for each call of tool, in
// order (tracetest.ToolOutputs).
var toolOutputs = tracetest.ToolOutputs

// continuation is the continuation the inference after the n-th
// task_continued saw (tracetest.Continuation, RND-2).
var continuation = tracetest.Continuation

// childRecords is the records directory of a parent's child, found by the
// child's session id under MURMUR_HOME (SES-3: records/<workdir>/<ses>).
func (w *world) childRecords(t testing.TB, childWorkdir, ses string) string {
	t.Helper()
	dir := filepath.Join(w.home, "records", strings.TrimPrefix(childWorkdir, "/"), ses)
	if _, err := os.Stat(filepath.Join(dir, "trace.jsonl")); err != nil {
		t.Fatalf("child records: %v", err)
	}
	return dir
}

var ids = regexp.MustCompile(`(dlg|ses|tsk|mcl|msg|ctx)_[0-9a-f]{32}|[a-z][a-z0-9]*-[0-9a-f]{16}`)

// normalise replaces ids and child directory names by <dlg_1>, <ses_1> …
// in order of first appearance, so texts compare with golden files.
func normalise(s string) string {
	seen := map[string]string{}
	n := map[string]int{}
	return ids.ReplaceAllStringFunc(s, func(id string) string {
		if r, ok := seen[id]; ok {
			return r
		}
		kind := id[:strings.IndexAny(id, "_-")]
		n[kind]++
		seen[id] = fmt.Sprintf("<%s_%d>", kind, n[kind])
		return seen[id]
	})
}

var durations = regexp.MustCompile(`duration_ms: [0-9]+`)

// normaliseIn is normalise with the parent's workdir read as <workdir> and
// durations as <n>.
func normaliseIn(s, workdir string) string {
	s = strings.ReplaceAll(s, workdir, "<workdir>")
	return normalise(durations.ReplaceAllString(s, "duration_ms: <n>"))
}

// noneLeft fails unless no live process remains in session sid, polled
// within testmur.LeftBound (a grandchild's parent-death signal lands a
// moment after its parent ends).
func noneLeft(t testing.TB, sid int) {
	t.Helper()
	testmur.NoneLeft(t, sid)
}

// goneWithin polls until no process of session sid is left, failing after d
// (a bound the spec gives, never a wait for a result).
func goneWithin(t testing.TB, sid int, d time.Duration) {
	t.Helper()
	if left := testmur.Left(sid, d); len(left) > 0 {
		t.Fatalf("still running %s later: %s", d, strings.Join(left, "; "))
	}
}

// decodeInto reads one JSON line into v.
func decodeInto(line string, v any) bool { return json.Unmarshal([]byte(line), v) == nil }

// readLine reads the line a child's shell command writes to the named pipe
// at path, to its end, so the writer never meets a closed pipe; once the
// mur p (which ends its children with it) has ended with nothing written,
// the test fails instead of waiting on.
func readLine(t testing.TB, path string, p *os.Process) string {
	t.Helper()
	return strings.TrimSpace(string(testmur.ReadFIFO(t, path, p)))
}

// waitFor polls cond until it holds, failing after d: for a state of
// another process that no event reports (a line in its trace).
func waitFor(t testing.TB, d time.Duration, cond func() bool) {
	t.Helper()
	testmur.Eventually(t, d, cond, "the condition")
}

// setsid puts a command in a session of its own (noneLeft).
func setsid() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
