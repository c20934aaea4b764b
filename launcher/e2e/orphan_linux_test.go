package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
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

// orphanRoot names, in a child test binary's environment, the directory its
// processes work under; set, TestKilledTestBinaryLeavesNoMur is the child.
const orphanRoot = "MUR_TEST_ORPHAN_ROOT"

// orphanReport is the child's one stdout line: its mur binary and every
// process it knows it has running.
type orphanReport struct {
	Mur  string         `json:"mur"`
	PIDs map[string]int `json:"pids"`
}

// TestKilledTestBinaryLeavesNoMur runs this test binary again as a child
// that starts, through testmur, a serving formation (its launcher and both
// crew members) and a `mur run --task` whose bash tool sleeps in its own
// process group; then the child dies with none of its cleanups run: it is
// SIGKILLed (a user's kill -9), or it panics on a goroutine of its own (as
// go test -timeout ends a hung test binary). Nothing it started outlives it:
// no process runs the child's mur binary or works under its directory.
// Before the end, the same look finds every one of them, so it can see them.
func TestKilledTestBinaryLeavesNoMur(t *testing.T) {
	if root := os.Getenv(orphanRoot); root != "" {
		orphanChild(t, root)
		return
	}
	t.Parallel()
	for _, end := range []string{"kill", "panic"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			orphanParent(t, end)
		})
	}
}

// orphanParent starts the child, ends it as end says, and looks for what
// it left.
func orphanParent(t *testing.T, end string) {
	root := testmur.TempDir(t)
	child := exec.Command(os.Args[0], "-test.run=^TestKilledTestBinaryLeavesNoMur$")
	child.Env = append(os.Environ(), orphanRoot+"="+root)
	var stderr testmur.Buffer
	child.Stderr = &stderr
	stdin, err := child.StdinPipe() // held open: the child waits on it
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := testmur.StartFake(child); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	var rep orphanReport
	if err := json.Unmarshal([]byte(line), &rep); err != nil || rep.Mur == "" || len(rep.PIDs) != 5 {
		_ = child.Process.Kill()
		_ = child.Wait()
		t.Fatalf("the child said %q (%v); stderr:\n%s", line, err, stderr.String())
	}
	if dir := filepath.Dir(rep.Mur); strings.HasPrefix(filepath.Base(dir), "mur-test-") {
		t.Cleanup(func() { os.RemoveAll(dir) }) // the child's TestMain never gets to
	}
	seen := survivors(root, rep.Mur)
	for name, pid := range rep.PIDs {
		if _, ok := seen[pid]; !ok {
			t.Errorf("before the end, %s (pid %d) is not among the child's processes %v", name, pid, seen)
		}
	}

	if end == "kill" {
		_ = child.Process.Kill() // SIGKILL: none of the child's cleanups runs
	} else if _, err := io.WriteString(stdin, "panic\n"); err != nil {
		t.Fatal(err)
	}
	err = child.Wait()
	if end == "panic" && !strings.Contains(stderr.String(), "panic: "+orphanPanic) {
		t.Errorf("the child ended %v without its panic; stderr:\n%s", err, stderr.String())
	}
	left := survivors(root, rep.Mur)
	deadline := time.Now().Add(time.Minute) // a hang guard: each one's orderly end is quick
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for len(left) > 0 && time.Now().Before(deadline) {
		<-tick.C
		left = survivors(root, rep.Mur)
	}
	for pid, what := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("pid %d (%s) outlived the test binary that started it", pid, what)
	}
}

// orphanPanic is what the child panics with when told to.
const orphanPanic = "the child test binary ends by a panic, as on go test's timeout"

// orphanChild is the child: it starts the processes, reports them, and
// waits on stdin, which the parent holds open until it has killed it or
// has written "panic" to it.
func orphanChild(t *testing.T, root string) {
	w := &world{home: filepath.Join(root, "home"), dir: filepath.Join(root, "work")}
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	scaffoldCrew(t, w)
	l := w.start(t, ".", "run", "--roster", "crew", "--json") // door mode: it serves on
	fl := decode[formationLine](t, l.line(t))
	entry := decode[readiness](t, l.line(t))
	if len(fl.Peers) != 1 {
		t.Fatalf("formation line %+v", fl)
	}
	pids := map[string]int{"launcher": l.cmd.Process.Pid, "lead": entry.PID, "worker": fl.Peers[0].PID}

	blocker := filepath.Join(w.dir, "blocker")
	if err := os.MkdirAll(blocker, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"murmur.yaml": "name: blocker\nversion: \"1.0.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		"script.yaml": "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: bash, input: {command: \"echo $$ > ready; exec sleep 300\"}}]\n      - text: started\n",
	} {
		if err := os.WriteFile(filepath.Join(blocker, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ready := testmur.FIFO(t, filepath.Join(blocker, "ready"))
	run := exec.Command(mur, "run", "--capsule", blocker, "--task", "block")
	run.Dir, run.Env = blocker, w.env()
	if err := testmur.Start(run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run.Process.Kill(); _ = run.Wait() }) // only if the parent dies first
	tool, err := strconv.Atoi(strings.TrimSpace(string(testmur.ReadFIFO(t, ready, run.Process))))
	if err != nil {
		t.Fatal(err)
	}
	pids["run"], pids["tool"] = run.Process.Pid, tool

	b, err := json.Marshal(orphanReport{Mur: mur, PIDs: pids})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%s\n", b)
	if cmd, _ := bufio.NewReader(os.Stdin).ReadString('\n'); cmd == "panic\n" {
		ended := make(chan struct{})
		go func() { defer close(ended); panic(orphanPanic) }() // unrecovered: the process dies, no cleanup runs
		<-ended
	}
}

// survivors returns every live process that runs the mur binary at mur or
// whose working directory is under root, each with its command line.
func survivors(root, mur string) map[int]string {
	found := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !testmur.Alive(pid) {
			continue
		}
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		if exe != mur && exe != mur+" (deleted)" && cwd != root && !strings.HasPrefix(cwd, root+"/") {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		found[pid] = strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return found
}
