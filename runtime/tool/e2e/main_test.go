package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
	"github.com/murmur-go/mur/runtime/wire"
)

// murBin is the real mur binary, built once by TestMain.
var murBin string

func TestMain(m *testing.M) { os.Exit(testmur.Run(m, testmur.Mur, &murBin)) }

// capsule is one test's capsule directory (its <project>) and MURMUR_HOME,
// symlinks resolved.
type capsule struct{ dir, home string }

func newCapsule(t *testing.T, manifest, script string) *capsule {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &capsule{dir: filepath.Join(root, "capsule"), home: filepath.Join(root, "home")}
	c.write(t, "murmur.yaml", manifest)
	c.write(t, "script.yaml", script)
	return c
}

// write writes a file under the capsule directory.
func (c *capsule) write(t *testing.T, rel, text string) {
	t.Helper()
	path := filepath.Join(c.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// command is mur with args, in the capsule directory, in a session of its
// own so that every process it starts can be found (noneLeft).
func (c *capsule) command(args ...string) *exec.Cmd {
	cmd := exec.Command(murBin, args...)
	cmd.Dir, cmd.Env = c.dir, testmur.Env(c.home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

// installGlobal writes a native tool's source (run.sh echoes its input) and
// installs it with mur install -g (capsule.md CLI-6).
func (c *capsule) installGlobal(t *testing.T, name, version string) {
	t.Helper()
	src := filepath.Join(filepath.Dir(c.dir), "src", name+"-"+version)
	for rel, body := range map[string]string{
		"murmur.yaml": "name: " + name + "\nversion: \"" + version + "\"\nruntime: tool\nimplementation: native\n" +
			"description: Edits one file.\ncommand: run.sh\ninput_schema:\n  type: object\n  properties:\n    path: {type: string}\n  required: [path]\n",
		"run.sh": "#!/bin/sh\necho \"edited $(cat)\"\n",
	} {
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, rel), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(murBin, "install", "-g", src)
	cmd.Dir, cmd.Env = filepath.Dir(src), testmur.Env(c.home)
	if out, errOut, code := testmur.Exec(t, cmd); code != 0 {
		t.Fatalf("mur install -g %s = %d\n%s%s", src, code, out, errOut)
	}
}

// readiness is mur run's --json line (capsule.md CLI-4).
type readiness = wire.Ready

// run runs `mur run --json --task task` to its end and proves it left no
// process behind.
func (c *capsule) run(t *testing.T, task string) (r readiness, stderr string, code int) {
	t.Helper()
	cmd := c.command("run", "--json", "--task", task)
	stdout, stderr, code := testmur.Exec(t, cmd)
	noneLeft(t, cmd.Process.Pid)
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("readiness line %q (exit %d, stderr %s): %v", stdout, code, stderr, err)
	}
	return r, stderr, code
}

// runtimeDir is the session's runtime directory (SES-3).
func runtimeDir(r readiness) string { return filepath.Join(r.Workdir, ".murmur", r.SessionID) }

// records reads a session's trace.jsonl, every line checked against its
// record type (runtime/trace/tracetest).
var records = tracetest.Records

// of decodes a trace's records of type T, in file order.
func of[T trace.Record](t testing.TB, recs []trace.Line) []T {
	t.Helper()
	return tracetest.OfType[T](t, recs)
}

// index is the position of the line with event id id.
func index(recs []trace.Line, id string) int {
	for i, r := range recs {
		if r.EventID == id {
			return i
		}
	}
	return -1
}

// parent is a line's parent_id, "" for none.
func parent(l trace.Line) string {
	if l.ParentID == nil {
		return ""
	}
	return *l.ParentID
}

// call is one tool_call: the tool, what the model got (trace.capture:
// content) and its status.
type call struct{ tool, output, status string }

func calls(t testing.TB, recs []trace.Line) []call {
	t.Helper()
	var out []call
	for _, r := range of[trace.ToolCall](t, recs) {
		o := ""
		if r.Output != nil {
			o = *r.Output
		}
		out = append(out, call{tool: r.ToolName, output: o, status: r.Status})
	}
	return out
}

// blob reads the body behind a TRACE-5 hash (trace.capture: content).
func blob(t *testing.T, dir, sha string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "blobs", sha))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noneLeft fails unless no live process remains in session sid: mur's
// children (native tools, plan shell steps) are gone once it has exited.
func noneLeft(t *testing.T, sid int) {
	t.Helper()
	testmur.NoneLeft(t, sid)
}

// exitCode reads a finished command's exit code.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}
