package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/murhome"
)

const waiterManifest = `name: waiter
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
  max_turns: 4
capabilities:
  shell:
    allow: [bash]
network:
  authentication:
    scheme: bearer
    credentials:
      - name: reader
        scopes: [GetTask, ListTasks]
`

// The task's one turn tells the test, through a FIFO, that its command runs
// (and which pid it has), then waits to be canceled.
const waiterScript = `script_version: 1
rules:
  - match: {contains: "wait"}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo $$ > started.fifo; exec sleep 300"}}]
      - text: "done"
`

// TestRealSessionPsTokenStopTraceCLI11CLI12CLI13 drives a real `mur run` door:
// mur ps lists it running, mur token prints its tokens, mur stop cancels its
// running task through session/stop and SIGTERMs it, and mur trace show reads
// the trace it left.
func TestRealSessionPsTokenStopTraceCLI11CLI12CLI13(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	capsule := filepath.Join(e.workdir, "waiter")
	if err := os.MkdirAll(capsule, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(capsule, "murmur.yaml"), []byte(waiterManifest), 0o600)
	os.WriteFile(filepath.Join(capsule, "script.yaml"), []byte(waiterScript), 0o600)
	fifo := filepath.Join(capsule, "started.fifo")
	testmur.FIFO(t, fifo)

	run := exec.Command(murBin, "run", "--capsule", capsule, "--json", "--task", "wait here",
		"--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
	run.Dir = e.workdir
	run.Env = append(os.Environ(), "MURMUR_HOME="+e.home)
	stdout, err := run.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := testmur.Start(run); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{}) // closed once mur run has been reaped
	go func() { run.Wait(); close(exited) }()
	t.Cleanup(func() {
		run.Process.Kill()
		<-exited
	})

	var ready struct {
		Auth      string `json:"auth"`
		PID       int    `json:"pid"`
		SessionID string `json:"session_id"`
		URL       string `json:"url"`
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || json.Unmarshal([]byte(line), &ready) != nil || ready.SessionID == "" {
		t.Fatalf("readiness line %q: %v", line, err)
	}
	// Block until the task's command runs: it opens the FIFO for writing.
	pidText := string(testmur.ReadFIFO(t, fifo, run.Process))
	sleepPID, err := strconv.Atoi(strings.TrimSpace(pidText))
	if err != nil {
		t.Fatalf("the command wrote %q, want its pid", pidText)
	}
	t.Cleanup(func() {
		if murhome.Check(sleepPID, "") != murhome.Gone {
			syscall.Kill(sleepPID, syscall.SIGKILL)
			t.Errorf("the task's command (pid %d) outlived its session", sleepPID)
		}
	})

	out, errOut, code := e.run(t, "ps")
	row := regexp.MustCompile(`(?m)^` + ready.SessionID + `  waiter@0\.1\.0 {12}  running {5}  \d\d:\d\d:\d\d   ` + regexp.QuoteMeta(ready.URL) + `$`)
	if code != 0 || errOut != "" || !row.MatchString(out) {
		t.Errorf("mur ps = %d, %q, %q; want a running row for %s", code, out, errOut, ready.SessionID)
	}
	out, _, code = e.run(t, "token", ready.SessionID[len(ready.SessionID)-6:])
	if !regexp.MustCompile(`^operator \S+\nreader \S+\n$`).MatchString(out) || code != 0 {
		t.Errorf("mur token = %d, %q; want operator then reader", code, out)
	}

	out, errOut, code = e.run(t, "stop", ready.SessionID)
	want := regexp.MustCompile(`^stopped: ` + ready.SessionID + `\ncapsule: waiter@0\.1\.0\nsignal:  SIGTERM\ncanceled: (tsk_[0-9a-f]{32})\nresidue: nothing else was left running\n$`)
	m := want.FindStringSubmatch(out)
	if code != 0 || errOut != "" || m == nil {
		t.Fatalf("mur stop = %d, %q, %q; want the CLI-13 block with one canceled task", code, out, errOut)
	}
	select {
	case <-exited:
	case <-time.After(time.Minute): // a hang guard, not a timing assertion
		t.Fatal("mur run still runs after mur stop")
	}
	if murhome.Check(ready.PID, "") != murhome.Gone || e.recordExists(ready.SessionID) {
		t.Errorf("after mur stop: process gone = %v, record kept = %v", murhome.Check(ready.PID, "") == murhome.Gone, e.recordExists(ready.SessionID))
	}

	out, errOut, code = e.run(t, "trace", "show", "--workdir", capsule)
	for _, s := range []string{
		"session:    " + ready.SessionID + "\n",
		"capsule:    waiter v0.1.0\n",
		"── Cancelled ",
		"  task " + m[1][len(m[1])-8:] + "  phase ", // the id's last 8 hex digits (CLI-10)
	} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("mur trace show = %d, stderr %q; stdout lacks %q:\n%s", code, errOut, s, out)
		}
	}
}
