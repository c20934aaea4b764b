package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/wire"
)

// mur is the real binary, built once by TestMain.
var mur string

func TestMain(m *testing.M) { os.Exit(testmur.Run(m, testmur.Mur, &mur)) }

// project is one test's roster directory and $MURMUR_HOME, symlinks resolved.
type project struct {
	dir, home string
	env       []string // extra environment for mur
}

func newProject(t testing.TB) *project {
	t.Helper()
	p := &project{}
	p.dir, p.home = testmur.Dirs(t, "studio")
	return p
}

// environ is the test's environment without MURMUR_* plus MURMUR_HOME and p.env.
func (p *project) environ() []string { return testmur.Env(p.home, p.env...) }

// write writes a file under the project directory.
func (p *project) write(t testing.TB, rel, text string) {
	t.Helper()
	path := filepath.Join(p.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// capsule is one member's capsule: extra is appended to the manifest
// (lifecycle, exports …), shell adds bash to capabilities.shell.allow,
// script is its scripted driver's file.
type capsule struct {
	name, extra, script string
	shell               bool
	contain             string // capabilities.containment with shell; "" means advisory
	maxTurns            int    // inference.max_turns; 0 means 12
}

// peerExtra is what every callee declares: queued peer tasks, consent.
const peerExtra = `lifecycle:
  task_acceptance: queue
  after_task: sleep
exports:
  peer_tasks:
    accept: true
`

// install writes each capsule under <dir>/<name>/ and installs it into the
// project store with mur install (capsule.md CLI-6).
func (p *project) install(t testing.TB, caps ...capsule) {
	t.Helper()
	for _, c := range caps {
		turns := c.maxTurns
		if turns == 0 {
			turns = 12
		}
		shell := ""
		if c.shell {
			// The tests meet members' shell commands on fifos in the project
			// directory, which a scoped peer cannot reach: advisory
			// unless a test asks for more.
			contain := c.contain
			if contain == "" {
				contain = "advisory"
			}
			shell = "  shell:\n    allow: [bash]\n  containment: " + contain + "\n"
		}
		p.write(t, c.name+"/murmur.yaml", fmt.Sprintf(`name: e2e-%s
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
  max_turns: %d
capabilities:
  network:
    allow: [localhost]
%snetwork:
  authentication:
    scheme: bearer
trace:
  capture: content
%s`, c.name, turns, shell, c.extra))
		p.write(t, c.name+"/script.yaml", c.script)
		cmd := exec.Command(mur, "install", c.name)
		cmd.Dir, cmd.Env = p.dir, p.environ()
		if out, err := testmur.Combined(cmd); err != nil {
			t.Fatalf("mur install %s: %v\n%s", c.name, err, out)
		}
	}
}

// roster writes roster.yaml: members in order (the first is the entry) and
// edges "from:to1,to2".
func (p *project) roster(t testing.TB, members []string, edges ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("roster_version: 1\nmembers:\n")
	for i, m := range members {
		fmt.Fprintf(&b, "  - name: %s\n    capsule: e2e-%s\n    version: \"0.1.0\"\n", m, m)
		if i == 0 {
			b.WriteString("    entry: true\n")
		}
	}
	b.WriteString("reachability:\n")
	for _, e := range edges {
		from, to, _ := strings.Cut(e, ":")
		fmt.Fprintf(&b, "  - from: %s\n    to: [%s]\n", from, to)
	}
	p.write(t, "roster.yaml", b.String())
}

// fifo makes a named pipe under the project directory and returns its path:
// members' shell commands and the test meet on them, with no timed wait.
func (p *project) fifo(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	testmur.FIFO(t, path)
	return path
}

// formationLine is FCLI-1's first line, readiness the entry's readiness
// line (capsule.md CLI-4): the wire types, decoded by testmur.Lines.
type (
	formationLine = wire.Formation
	readiness     = wire.Ready
)

// launch is a running `mur run --roster . --json …`, in a session of its own
// so that every process it starts can be found (noneLeft).
type launch struct {
	*testmur.Lines
	p      *project
	cmd    *exec.Cmd
	lines  <-chan string
	stderr *testmur.Buffer
	done   <-chan struct{}
	form   formationLine
	entry  readiness
}

// start launches the roster with --json and the task, and reads both lines.
func (p *project) start(t testing.TB, task string) *launch {
	t.Helper()
	return p.launch(t, "--task", task)
}

// launch launches the roster with --json and args, and reads both lines.
func (p *project) launch(t testing.TB, args ...string) *launch {
	t.Helper()
	cmd := exec.Command(mur, append([]string{"run", "--roster", ".", "--json"}, args...)...)
	cmd.Dir, cmd.Env = p.dir, p.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	ln := testmur.StartLines(t, cmd)
	l := &launch{Lines: ln, p: p, cmd: cmd, lines: ln.C(), stderr: ln.Stderr, done: ln.Done()}
	l.form = ln.Formation(t)
	l.entry = ln.Ready(t)
	return l
}

// wait reaps the launcher, returns its exit code, and fails the test if any
// process the launch started is still alive (every test proves it).
func (l *launch) wait(t testing.TB) int {
	t.Helper()
	code := l.Wait()
	noneLeft(t, l.cmd.Process.Pid)
	return code
}

// peer returns the formation line's entry for name.
func (l *launch) peer(t testing.TB, name string) (pid int, session, url, records string) {
	t.Helper()
	for _, p := range l.form.Peers {
		if p.Name == name {
			return p.PID, p.SessionID, p.URL, filepath.Join(l.p.home, "records", strings.TrimPrefix(p.Workdir, "/"), p.SessionID)
		}
	}
	t.Fatalf("no peer %s in %+v", name, l.form)
	return 0, "", "", ""
}

// noneLeft fails unless no live (non-zombie) process remains in session
// sid, polled within testmur.LeftBound.
func noneLeft(t testing.TB, sid int) {
	t.Helper()
	testmur.NoneLeft(t, sid)
}

// want compares got with want, showing both in full.
func want(t testing.TB, name, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s =\n%s\n--- want\n%s", name, got, want)
	}
}
