package shell

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/tool"
)

type exitLog struct {
	mu    sync.Mutex
	exits map[string]bool // work id → returned
	ch    chan string
}

func bgShell(t *testing.T) (*Shell, *exitLog) {
	t.Helper()
	sh := testShell(t)
	zero := time.Duration(0)
	el := &exitLog{exits: map[string]bool{}, ch: make(chan string, 8)} // buffered: a few exits per test
	sh.Grace = &zero
	sh.Works = &Works{OnExit: func(w *Work, returned bool) {
		el.mu.Lock()
		el.exits[w.ID] = returned
		el.mu.Unlock()
		el.ch <- w.ID
	}}
	t.Cleanup(func() { sh.Works.Close() })
	return sh, el
}

var workIDRe = regexp.MustCompile(`wrk_[0-9a-f]{32}`)

// normalise replaces the work id, elapsed seconds and paths for golden files.
func normalise(s, logsDir string) string {
	s = workIDRe.ReplaceAllString(s, "wrk_ID")
	s = strings.ReplaceAll(s, logsDir, "<logs>")
	s = regexp.MustCompile(`(elapsed_secs|waited_secs|"elapsed_secs"|"waited_secs"):( ?)\d+`).ReplaceAllString(s, "$1:${2}N")
	return s
}

func detach(t *testing.T, sh *Shell, command string) (tool.Result, *Work) {
	t.Helper()
	res := call(t, sh.Tool("bash"), nil, fmt.Sprintf(`{"command":%q}`, command))
	id := workIDRe.FindString(res.Data)
	w := sh.Works.Get(id)
	if w == nil {
		t.Fatalf("no work for %q", res.Data)
	}
	if res.Shells != 1 || len(res.Detached) != 1 || res.Detached[0] != id {
		t.Errorf("Shells = %d, Detached = %v; want 1, [%s] (task_canceled.detached_work_ids)", res.Shells, res.Detached, id)
	}
	return res, w
}

func TestDetachAndStop_SHELL2_BG1(t *testing.T) {
	sh, el := bgShell(t)
	res, w := detach(t, sh, "exec sleep 60")
	got := normalise(res.Data+"\n--notes--\n"+strings.Join(res.Notes, "\n")+"\n--record--\n"+res.Records[0].String(), sh.LogsDir)
	golden.Check(t, "bg_detached", got)
	if ids := sh.Works.Running(); len(ids) != 1 || ids[0] != w.ID {
		t.Errorf("Running = %v", ids)
	}
	bg := Background(sh.Works)
	st := call(t, bg, nil, fmt.Sprintf(`{"operation":"stop","work_id":%q}`, w.ID))
	out := normalise(st.Data+"\n--record--\n"+st.Records[0].String(), sh.LogsDir)
	golden.Check(t, "bg_stopped", out)
	if id := <-el.ch; id != w.ID || !el.exits[id] {
		t.Errorf("OnExit(%s, returned=%v), want %s returned (stop returned its exit)", id, el.exits[id], w.ID)
	}
	if !groupGone(w.pgid) {
		t.Errorf("process group %d left running", w.pgid)
	}
}

func TestWaitReturnsExit_BG1_BG3(t *testing.T) {
	sh, el := bgShell(t)
	fifo := filepath.Join(sh.Workdir, "go")
	testmur.FIFO(t, fifo)
	_, w := detach(t, sh, "read line < "+fifo+"; echo got $line; exit 4")
	bg := Background(sh.Works)
	waiting := make(chan struct{})
	var once sync.Once
	cc := &tool.CallContext{TaskID: "tsk_a", Turn: 3, SetPhase: func(p string) {
		if p == "background_wait" {
			once.Do(func() { close(waiting) })
		}
	}}
	done := make(chan tool.Result, 1) // buffered: the call's goroutine never blocks
	go func() {
		done <- bg.Call(context.Background(), cc, json.RawMessage(fmt.Sprintf(`{"operation":"wait","work_id":%q,"wait_secs":900}`, w.ID)))
	}()
	<-waiting
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "x")
	f.Close()
	res := <-done
	golden.Check(t, "bg_waited", normalise(res.Data+"\n--record--\n"+res.Records[0].String(), sh.LogsDir))
	if id := <-el.ch; !el.exits[id] {
		t.Error("an exit a wait returned was not marked returned (no completion task, BG-3)")
	}
}

func TestExitUnreturned_SHELL3(t *testing.T) {
	sh, el := bgShell(t)
	fifo := filepath.Join(sh.Workdir, "go")
	testmur.FIFO(t, fifo)
	_, w := detach(t, sh, "read line < "+fifo)
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if id := <-el.ch; id != w.ID || el.exits[id] {
		t.Errorf("OnExit(%s, returned=%v), want unreturned", id, el.exits[id])
	}
	st := call(t, Background(sh.Works), nil, fmt.Sprintf(`{"operation":"status","work_id":%q}`, w.ID))
	if !strings.Contains(st.Data, "state: exited\n") || !strings.Contains(st.Data, "exit_code: 1\nstatus: error\n") {
		t.Errorf("status = %q", st.Data)
	}
}

func TestBackgroundRefusals_BG4(t *testing.T) {
	sh, _ := bgShell(t)
	bg := Background(sh.Works)
	inputs := []string{
		`{"operation":"status"}`,
		`{"operation":"status","work_id":"job-1"}`,
		`{"operation":"status","work_id":7}`,
		`{"work_id":"wrk_0199a3f1c2d47e8ab5c6d7e8f9a0b1c2"}`,
		`{"operation":"kill","work_id":"wrk_0199a3f1c2d47e8ab5c6d7e8f9a0b1c2"}`,
		`{"operation":"wait","work_id":"wrk_0199a3f1c2d47e8ab5c6d7e8f9a0b1c2","wait_secs":1.5}`,
		`{"operation":"wait","work_id":"wrk_0199a3f1c2d47e8ab5c6d7e8f9a0b1c2","wait_secs":"ten"}`,
		`{"operation":"wait","work_id":"wrk_0199a3f1c2d47e8ab5c6d7e8f9a0b1c2","wait_secs":-1}`,
		`{"operation":"status","work_id":"wrk_0199a3f1c2d47e8ab5c6d7e8f9a0b1c2"}`,
	}
	var out []string
	for _, in := range inputs {
		res := call(t, bg, nil, in)
		if !res.Refused || len(res.Records) != 0 {
			t.Errorf("%s: refused=%v records=%d, want a refusal with no record", in, res.Refused, len(res.Records))
		}
		out = append(out, in+"\n  "+res.Data)
	}
	golden.Check(t, "bg_refusals", strings.Join(out, "\n")+"\n")
}

func TestSessionEndAbandons_SES8(t *testing.T) {
	sh, el := bgShell(t)
	_, w := detach(t, sh, "trap '' TERM; exec sleep 60")
	ab := sh.Works.Close()
	if len(ab) != 1 || ab[0].Work != w {
		t.Fatalf("abandoned = %+v", ab)
	}
	if !groupGone(w.pgid) {
		t.Errorf("process group %d left running", w.pgid)
	}
	select {
	case id := <-el.ch:
		t.Errorf("OnExit called for abandoned %s (shell_abandoned, not shell_completed)", id)
	default:
	}
}

func TestReportLongOutput_BG2(t *testing.T) {
	sh, el := bgShell(t)
	_, w := detach(t, sh, "head -c 20000 /dev/zero | tr '\\0' b; exit 101")
	<-el.ch
	got := w.Report(time.Now(), nil)
	head := fmt.Sprintf("work_id: %s\nstate: exited\nelapsed_secs: 0\nexit_code: 101\nstatus: error\noutput: %s\noutput_bytes: 20000\noutput_shown: last 16384 bytes\n\n", w.ID, w.LogPath)
	if !strings.HasPrefix(got, head) {
		t.Errorf("report head = %q, want %q", got[:min(len(got), len(head))], head)
	}
	if tail := strings.TrimPrefix(got, head); tail != strings.Repeat("b", TailBytes) {
		t.Errorf("output shown = %d bytes, want the last %d", len(tail), TailBytes)
	}
	if !filepath.IsAbs(w.LogPath) {
		t.Errorf("output path %s is not absolute", w.LogPath)
	}
}

func TestSessionEndKillsEveryStubbornGroup_SES8(t *testing.T) {
	sh, _ := bgShell(t)
	var works []*Work
	for range 3 {
		_, w := detach(t, sh, "trap '' TERM; while :; do sleep 1; done")
		works = append(works, w)
	}
	closed := make(chan []Abandoned, 1) // buffered: Close's goroutine never blocks
	go func() { closed <- sh.Works.Close() }()
	var ab []Abandoned
	select {
	case ab = <-closed:
	case <-time.After(60 * time.Second): // a hang guard, not a timing assertion
		for _, w := range works {
			_ = syscall.Kill(-w.pgid, syscall.SIGKILL) // so Close and the cleanup's return
		}
		<-closed
		t.Fatal("Close still waiting: commands that ignore SIGTERM after the first were never sent SIGKILL")
	}
	if len(ab) != len(works) {
		t.Fatalf("abandoned %d commands, want %d", len(ab), len(works))
	}
	for _, w := range works {
		if !groupGone(w.pgid) {
			t.Errorf("process group %d left running", w.pgid)
		}
	}
}

// TestWaitCancelledPhase_BG1 is BG-1's "a cancel of the task ends the wait at
// once, recorded as phase background_wait": the wait returns on the cancel
// and leaves the phase the loop writes task_canceled with at background_wait.
func TestWaitCancelledPhase_BG1(t *testing.T) {
	sh, _ := bgShell(t)
	_, w := detach(t, sh, "exec sleep 60")
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var phases []string
	cc := &tool.CallContext{TaskID: "tsk_a", Turn: 1, SetPhase: func(p string) {
		mu.Lock()
		phases = append(phases, p)
		mu.Unlock()
		if p == "background_wait" {
			cancel() // the task is cancelled while the wait runs
		}
	}}
	res := Background(sh.Works).Call(ctx, cc, json.RawMessage(fmt.Sprintf(`{"operation":"wait","work_id":%q}`, w.ID)))
	if !strings.Contains(res.Data, "state: running\n") {
		t.Errorf("data = %q, want the running command's report", res.Data)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(phases) == 0 || phases[len(phases)-1] != "background_wait" {
		t.Errorf("phases = %q, want the last one background_wait (task_canceled.phase)", phases)
	}
}
