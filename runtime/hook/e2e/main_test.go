// Package e2e runs policy and observer hooks through the real mur binary:
// hook artifacts installed with mur install, started by mur run, their
// answers deciding tool calls and shell commands, reopening tasks and
// seeding them, and every fail-closed case with its record.
package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// murBin is the real mur binary, built once by TestMain.
var murBin string

func TestMain(m *testing.M) { os.Exit(testmur.Run(m, testmur.Mur, &murBin)) }

// capsule is one test's capsule directory (its <project>) and MURMUR_HOME.
type capsule struct {
	dir, home string
	env       []string // more environment for mur run
}

func newCapsule(t *testing.T, manifest, script string) *capsule {
	t.Helper()
	root := testmur.TempDir(t)
	c := &capsule{dir: filepath.Join(root, "capsule"), home: filepath.Join(root, "home")}
	c.write(t, "murmur.yaml", manifest)
	c.write(t, "script.yaml", script)
	return c
}

// write writes a file under the capsule directory.
func (c *capsule) write(t *testing.T, rel, text string) {
	t.Helper()
	writeFile(t, filepath.Join(c.dir, rel), text)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// command is mur with args in the capsule directory, in a session of its
// own so every process it starts can be found.
func (c *capsule) command(args ...string) *exec.Cmd {
	cmd := exec.Command(murBin, args...)
	cmd.Dir, cmd.Env = c.dir, testmur.Env(c.home, c.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

// installHook writes a hook artifact (murmur.yaml with contract, and
// hook.sh) and installs it with mur install -g; it returns mur install's
// exit code and stderr.
func (c *capsule) installHook(t *testing.T, name, contract, script string) (int, string) {
	t.Helper()
	src := filepath.Join(filepath.Dir(c.dir), "src", name)
	writeFile(t, filepath.Join(src, "murmur.yaml"), "name: "+name+"\nversion: \"1.0.0\"\nruntime: hook\nimplementation: native\ncommand: hook.sh\n"+contract)
	writeFile(t, filepath.Join(src, "hook.sh"), script)
	cmd := exec.Command(murBin, "install", "-g", src)
	cmd.Dir, cmd.Env = filepath.Dir(src), testmur.Env(c.home)
	_, errOut, code := testmur.Exec(t, cmd)
	return code, errOut
}

// mustInstallHook is installHook that must succeed.
func (c *capsule) mustInstallHook(t *testing.T, name, contract, script string) {
	t.Helper()
	if code, errOut := c.installHook(t, name, contract, script); code != 0 {
		t.Fatalf("mur install -g %s = %d\n%s", name, code, errOut)
	}
}

// readiness is mur run's --json line.
type readiness struct {
	RecordsDir string `json:"records_dir"`
	SessionID  string `json:"session_id"`
	Workdir    string `json:"workdir"`
}

// run runs `mur run --json --task task` to its end and proves it left no
// process behind.
func (c *capsule) run(t *testing.T, task string) (r readiness, stderr string, code int) {
	t.Helper()
	cmd := c.command("run", "--json", "--task", task)
	stdout, stderr, code := testmur.Exec(t, cmd)
	for _, p := range testmur.InSession(cmd.Process.Pid) {
		t.Errorf("process left behind in mur's session: %s", p)
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("readiness line %q (exit %d, stderr %s): %v", stdout, code, stderr, err)
	}
	return r, stderr, code
}

// records reads a session's trace.jsonl, every line checked.
var records = tracetest.Records

func of[T trace.Record](t testing.TB, recs []trace.Line) []T {
	t.Helper()
	return tracetest.OfType[T](t, recs)
}

// hookLine is the shell a test hook starts with: it reads one request a
// line, takes its id, and hands the line to answer (a shell function the
// test writes) which prints the answer's JSON without the id.
const hookHead = `#!/bin/sh
reply() { printf '{"id":%s,%s}\n' "$id" "$1"; }
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/')
`

const hookTail = `done
`

// hookScript is a hook whose body (shell, with $line and reply) decides.
func hookScript(body string) string { return hookHead + body + hookTail }

// modelToolResults are the tool results of the latest tool message the
// model was sent (the blobs trace.capture: content writes), in order.
func modelToolResults(t *testing.T, r readiness) []string {
	t.Helper()
	recs := records(t, r.RecordsDir)
	infs := of[trace.Inference](t, recs)
	for i := len(infs) - 1; i >= 0; i-- {
		if infs[i].Capture == nil {
			continue
		}
		shas := infs[i].MessageSHAs
		b, err := os.ReadFile(filepath.Join(r.RecordsDir, "blobs", shas[len(shas)-1]))
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Role   string `json:"role"`
			Blocks []struct {
				Content string `json:"content"`
			} `json:"blocks"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.Role != "tool" {
			continue
		}
		var out []string
		for _, b := range m.Blocks {
			out = append(out, b.Content)
		}
		return out
	}
	t.Fatal("no inference was sent a tool message")
	return nil
}

// lastUserText is the text of the last user message the latest inference
// was sent.
func lastUserText(t *testing.T, r readiness) string {
	t.Helper()
	infs := of[trace.Inference](t, records(t, r.RecordsDir))
	inf := infs[len(infs)-1]
	shas := inf.MessageSHAs
	b, err := os.ReadFile(filepath.Join(r.RecordsDir, "blobs", shas[len(shas)-1]))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Role   string `json:"role"`
		Blocks []struct {
			Text string `json:"text"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Role != "user" || len(m.Blocks) == 0 {
		t.Fatalf("last message %s: %v", b, err)
	}
	return m.Blocks[0].Text
}
