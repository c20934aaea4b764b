package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// runEnv is one process test of `mur run`: a MURMUR_HOME and a capsule dir.
type runEnv struct {
	home string
	dir  string // the capsule directory and the process's cwd
}

func newRunEnv(t *testing.T, files map[string]string) *runEnv {
	t.Helper()
	e := &runEnv{home: t.TempDir(), dir: t.TempDir()}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(e.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// helloEnv copies examples/hello into a fresh directory (capsule.md §8a).
func helloEnv(t *testing.T) *runEnv {
	t.Helper()
	files := map[string]string{}
	for _, f := range []string{"murmur.yaml", "script.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "hello", f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
	}
	return newRunEnv(t, files)
}

func (e *runEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(murBin, append([]string{"run"}, args...)...)
	cmd.Dir = e.dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "MURMUR_HOME=" + e.home, "HOME=" + e.home}
	return cmd
}

// run runs mur run to its end.
func (e *runEnv) run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return testmur.Exec(t, e.command(args...))
}

// runProc is a mur run started in the background.
type runProc struct {
	cmd    *exec.Cmd
	stdout *bufio.Reader
	stderr bytes.Buffer
	done   chan struct{}
}

func (e *runEnv) start(t *testing.T, args ...string) *runProc {
	t.Helper()
	p := &runProc{cmd: e.command(args...), done: make(chan struct{})}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = &p.stderr
	p.stdout = bufio.NewReader(out)
	if err := testmur.Start(p.cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			p.wait()
		}
	})
	return p
}

// wait reaps the process and returns its exit code (-1 if a signal killed it).
func (p *runProc) wait() int {
	select {
	case <-p.done:
	default:
		_, _ = io.Copy(io.Discard, p.stdout)
		_ = p.cmd.Wait()
		close(p.done)
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *runProc) line(t *testing.T) string {
	t.Helper()
	s, err := p.stdout.ReadString('\n')
	if err != nil {
		t.Fatalf("read stdout: %v (stderr %q)", err, p.stderr.String())
	}
	return strings.TrimSuffix(s, "\n")
}

var (
	urlLineRe = regexp.MustCompile(`^murmur: url http://127\.0\.0\.1:(\d+)$`)
	sesRe     = regexp.MustCompile(`ses_[0-9a-f]{32}`)
)

// traceTypes reads the event types of a records directory's trace, every
// line checked against its record type (tracetest).
func traceTypes(t *testing.T, recordsDir string) []string {
	t.Helper()
	return tracetest.Types(tracetest.Records(t, recordsDir))
}

func count(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

// blockingCapsule runs a bash command that reports its process group on a
// fifo and then waits.
func blockingCapsule(t *testing.T, lifecycle, command string) *runEnv {
	t.Helper()
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: blocker\nversion: \"1.0.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\ncapabilities:\n  shell:\n    allow: [bash]\n" + lifecycle,
		"script.yaml": fmt.Sprintf("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: bash, input: {command: %q}}]\n      - text: started\n", command),
	})
	testmur.FIFO(t, filepath.Join(e.dir, "ready"))
	return e
}

// readyPgid reads the process group the command wrote to the fifo; the
// test fails, rather than waits on, once p ends with nothing written.
func readyPgid(t *testing.T, e *runEnv, p *runProc) int {
	t.Helper()
	b := testmur.ReadFIFO(t, filepath.Join(e.dir, "ready"), p.cmd.Process)
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("ready = %q", b)
	}
	return pgid
}

// runGroupGone reports whether process group pgid has no live member, polling
// /proc for up to 10 s: a SIGKILL lands asynchronously.
func runGroupGone(pgid int) bool {
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		alive := false
		ents, _ := os.ReadDir("/proc")
		for _, ent := range ents {
			b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "stat"))
			if err != nil {
				continue
			}
			s := string(b)
			f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
			if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
				alive = true
			}
		}
		if !alive {
			return true
		}
		<-tick.C
	}
	return false
}
