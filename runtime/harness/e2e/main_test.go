package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
	"github.com/murmur-go/mur/runtime/wire"
)

// mur is the real binary, fake the fake harness; TestMain builds both.
var mur, fake string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakeharness-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fake = filepath.Join(dir, "fakeharness")
	if out, err := testmur.Combined(exec.Command("go", "build", "-o", fake, "github.com/murmur-go/mur/internal/harnesstest/fakeharness")); err != nil {
		fmt.Fprintf(os.Stderr, "build the fake harness: %v\n%s", err, out)
		os.Exit(1)
	}
	code := testmur.Run(m, testmur.Mur, &mur)
	os.RemoveAll(dir)
	os.Exit(code)
}

// hcap is one test's process capsule: its directory, MURMUR_HOME and the
// harness's own HOME (where the fake keeps sessions and calls.jsonl).
type hcap struct {
	dir, home, hhome string
	dialect          string   // the fake's: claude or codex
	env              []string // extra environment for mur
}

// state is the fake's records directory (~/.claude/.fakeharness or
// ~/.codex/.fakeharness, in the harness's HOME).
func (c *hcap) state(elem ...string) string {
	return filepath.Join(append([]string{c.hhome, "." + c.dialect, ".fakeharness"}, elem...)...)
}

// newCap writes a capsule whose harness is the fake, as the dialect's
// binary name (claude or codex), with the fake's script. inference and
// extra are appended to the inference block and the manifest.
func newCap(t testing.TB, dialect, inference, extra, script string) *hcap {
	t.Helper()
	root := testmur.TempDir(t)
	c := &hcap{dir: filepath.Join(root, "capsule"), home: filepath.Join(root, "mhome"), hhome: filepath.Join(root, "hhome"), dialect: dialect}
	for _, d := range []string{c.dir, c.hhome, filepath.Join(root, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(root, "bin", dialect)
	if err := os.Symlink(fake, bin); err != nil {
		t.Fatal(err)
	}
	c.write(t, "script.json", script)
	c.write(t, "murmur.yaml", fmt.Sprintf(`name: hx
version: "0.1.0"
capabilities:
  env: {allow: [HOME, PATH, FAKE_HARNESS_SCRIPT, FAKE_HARNESS_AUTH]}
  shell: {allow: [echo, sleep]}
inference:
  transport: process
  command: %s
%strace:
  capture: content
%s`, bin, inference, extra))
	c.env = []string{"HOME=" + c.hhome, "FAKE_HARNESS_SCRIPT=" + filepath.Join(c.dir, "script.json")}
	return c
}

func (c *hcap) write(t testing.TB, rel, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, rel), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// command is mur with args in the capsule directory, in a session of its
// own so that every process it starts can be found (noneLeft).
func (c *hcap) command(args ...string) *exec.Cmd {
	cmd := exec.Command(mur, args...)
	cmd.Dir, cmd.Env = c.dir, testmur.Env(c.home, c.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

// readiness is mur run's --json line (CLI-4).
type readiness = wire.Ready

// run runs `mur run --json --task task` to its end, proves it left no
// process behind, and returns its readiness line, the rest of stdout,
// stderr and exit code.
func (c *hcap) run(t testing.TB, task string) (r readiness, rest, stderr string, code int) {
	t.Helper()
	cmd := c.command("run", "--json", "--task", task)
	stdout, stderr, code := testmur.Exec(t, cmd)
	noneLeft(t, cmd.Process.Pid)
	first, rest, _ := strings.Cut(stdout, "\n")
	if err := json.Unmarshal([]byte(first), &r); err != nil {
		t.Fatalf("readiness line %q (exit %d, stderr %s): %v", stdout, code, stderr, err)
	}
	stderrs.Store(r.RecordsDir, fmt.Sprintf("exit %d, stderr:\n%s", code, stderr))
	return r, rest, stderr, code
}

// stderrs holds each run's exit code and stderr by its records directory,
// for result to show when the run wrote no result.
var stderrs sync.Map

// fakeCall is one line of the fake's calls.jsonl: an invocation.
type fakeCall struct {
	Argv  []string `json:"argv"`
	Env   []string `json:"env"`
	Stdin string   `json:"stdin"`
	// Status is its CapEff, NoNewPrivs and Seccomp lines.
	Status []string `json:"status"`
}

// calls reads every invocation of the fake, in order.
func (c *hcap) calls(t testing.TB) []fakeCall {
	t.Helper()
	b, err := os.ReadFile(c.state("calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []fakeCall
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var fc fakeCall
		if err := json.Unmarshal([]byte(l), &fc); err != nil {
			t.Fatal(err)
		}
		if len(fc.Argv) == 2 && fc.Argv[1] == "--version" {
			continue
		}
		out = append(out, fc)
	}
	return out
}

// fakeResult is one line of the fake's results.jsonl: a bridged call's
// answer as the harness read it.
type fakeResult struct {
	Name    string `json:"name"`
	Text    string `json:"text"`
	IsError bool   `json:"is_error"`
}

// results reads every bridged answer the fake received, in order.
func (c *hcap) results(t testing.TB) []fakeResult {
	t.Helper()
	b, err := os.ReadFile(c.state("results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []fakeResult
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r fakeResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// records reads a session's trace, every line checked against its type.
var records = tracetest.Records

func of[T trace.Record](t testing.TB, recs []trace.Line) []T {
	t.Helper()
	return tracetest.OfType[T](t, recs)
}

// types lists the records' event types, in order, without the envelope.
var types = tracetest.Types

// noneLeft fails unless no live process remains in session sid, polled
// within testmur.LeftBound.
func noneLeft(t testing.TB, sid int) {
	t.Helper()
	testmur.NoneLeft(t, sid)
}

// only returns the one record of type T, failing unless there is exactly one.
func only[T trace.Record](t testing.TB, recs []trace.Line) T {
	t.Helper()
	all := of[T](t, recs)
	if len(all) != 1 {
		var zero T
		t.Fatalf("%d %s records, want 1", len(all), zero.EventType())
	}
	return all[0]
}

// result is the session's out/result.txt (SES-5). A run that wrote none
// fails the test with what it left to go on: its exit code and stderr (when
// run started it) and its trace.
func result(t testing.TB, r readiness) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.RecordsDir, "out", "result.txt"))
	if err != nil {
		run, _ := stderrs.Load(r.RecordsDir)
		tr, terr := os.ReadFile(filepath.Join(r.RecordsDir, "trace.jsonl"))
		if terr != nil {
			tr = []byte(terr.Error())
		}
		t.Fatalf("%v\n%v\ntrace.jsonl:\n%s", err, run, tr)
	}
	return string(b)
}

// gone reports whether the process with pid text p has exited.
func gone(p string) bool {
	pid, err := strconv.Atoi(p)
	return err == nil && testmur.Gone(pid)
}

// execCmd runs cmd to its end and proves it left no process behind.
func execCmd(t testing.TB, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	stdout, stderr, code = testmur.Exec(t, cmd)
	noneLeft(t, cmd.Process.Pid)
	return stdout, stderr, code
}

func mkdirs(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
