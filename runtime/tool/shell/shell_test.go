package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/tool"
)

func testShell(t *testing.T) *Shell {
	t.Helper()
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	if err := os.Mkdir(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	return &Shell{Workdir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}, LogsDir: logs}
}

func call(t *testing.T, tl tool.Tool, cc *tool.CallContext, input string) tool.Result {
	t.Helper()
	if cc == nil {
		cc = &tool.CallContext{TaskID: "tsk_a", Turn: 2}
	}
	return tl.Call(context.Background(), cc, json.RawMessage(input))
}

// groupGone reports whether no live (non-zombie) process is left in process
// group pgid. A SIGKILL is delivered asynchronously and the kernel tells no
// one, so it polls /proc for up to 10 s.
func groupGone(pgid int) bool {
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if len(liveInGroup(pgid)) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
}

// liveInGroup lists the pids of process group pgid that are not zombies.
func liveInGroup(pgid int) []int {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestShellResult_SHELL3(t *testing.T) {
	sh := testShell(t)
	res := call(t, sh.Tool("bash"), nil, `{"command":"echo out; echo err >&2; exit 3"}`)
	if res.IsError() || res.Status != tool.Passed {
		t.Fatalf("result = %+v (a non-zero exit is data, SHELL-1)", res)
	}
	want := "$ echo out; echo err >&2; exit 3\nExit code: 3\nStdout:\nout\n\nStderr:\nerr"
	if res.Data != want {
		t.Errorf("data = %q, want %q", res.Data, want)
	}
	if res.Summary != "bash: exit 3" || *res.ExitCode != 3 {
		t.Errorf("summary = %q, exit = %d", res.Summary, *res.ExitCode)
	}
	if res.Shells != 1 || res.Detached != nil {
		t.Errorf("Shells = %d, Detached = %v; want 1, none", res.Shells, res.Detached)
	}
	rec := res.Records[0].String()
	for _, part := range []string{`"event_type":"shell","turn":2,"task_id":"tsk_a","binary":"bash","command":"echo out; echo err >&2; exit 3","exit_code":3,"stdout_bytes":4,"stderr_bytes":4,"duration_ms":`} {
		if !strings.Contains(rec, part) {
			t.Errorf("record %s lacks %s", rec, part)
		}
	}
}

func TestShellWorkdirAndArgv_LOOP11(t *testing.T) {
	sh := testShell(t)
	if err := os.WriteFile(filepath.Join(sh.Workdir, "a file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res := call(t, sh.Tool("ls"), nil, `{"command":"ls -1 'a file'"}`)
	if !strings.Contains(res.Data, "Stdout:\na file\n") {
		t.Errorf("data = %q", res.Data)
	}
}

func TestShellLongStream_SHELL3(t *testing.T) {
	sh := testShell(t)
	res := call(t, sh.Tool("bash"), nil, `{"command":"head -c 20000 /dev/zero | tr '\\0' a; echo"}`)
	log := filepath.Join(sh.LogsDir, "shell-1.log")
	prefix := fmt.Sprintf("Stdout:\n[%d earlier bytes are in %s]\n", 20001-TailBytes, log)
	if !strings.Contains(res.Data, prefix) {
		t.Fatalf("data head = %q", res.Data[:200])
	}
	b, err := os.ReadFile(log)
	if err != nil || len(b) != 20001 {
		t.Errorf("log holds %d bytes (%v), want the whole stream", len(b), err)
	}
	tail := strings.SplitN(res.Data, prefix, 2)[1]
	if got := strings.Index(tail, "\n\nStderr:"); got != TailBytes-1 {
		t.Errorf("tail shown = %d bytes, want the last 16 KiB less the dropped newline", got)
	}
}

func TestShellUnstartable_SHELL3(t *testing.T) {
	sh := testShell(t)
	res := call(t, sh.Tool("no-such-binary-mur"), nil, `{"command":"x"}`)
	if !res.Refused || res.Data != "'no-such-binary-mur' could not be started: no-such-binary-mur was not found on PATH" {
		t.Errorf("result = %+v", res)
	}
	res = call(t, sh.Tool("ls"), nil, `{"command":"ls 'open"}`)
	if !res.Refused || res.Data != "'ls' could not be started: unmatched single quote" {
		t.Errorf("result = %+v", res)
	}
	res = call(t, sh.Tool("bash"), nil, `{}`)
	if !res.Refused || res.Data != "'bash' needs command" {
		t.Errorf("result = %+v", res)
	}
	sh.Allowed = func(string) bool { return false }
	res = call(t, sh.Tool("bash"), nil, `{"command":"true"}`)
	if !res.Refused || res.Data != "tool 'bash' is not in this session's inventory" {
		t.Errorf("result = %+v", res)
	}
}

func TestShellHeldOutput_SHELL3(t *testing.T) {
	sh := testShell(t)
	pidFile := filepath.Join(sh.Workdir, "pid")
	res := call(t, sh.Tool("bash"), nil, fmt.Sprintf(`{"command":"(exec sleep 60) & echo $! > %s; echo early"}`, pidFile))
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	t.Cleanup(func() {
		if pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if len(res.Notes) != 1 || res.Notes[0] != "[shell] processes this command started still hold its output; later output is not shown" {
		t.Errorf("notes = %q", res.Notes)
	}
	if !strings.Contains(res.Data, "Stdout:\nearly\n") {
		t.Errorf("data = %q", res.Data)
	}
}

func TestShellCancelKillsGroup_LOOP16(t *testing.T) {
	sh := testShell(t)
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := filepath.Join(sh.Workdir, "pid")
	fifo := filepath.Join(sh.Workdir, "ready")
	testmur.FIFO(t, fifo)
	go func() {
		// The command signals it runs by opening the fifo; then we cancel.
		f, err := os.Open(fifo)
		if err == nil {
			f.Close()
		}
		cancel()
	}()
	res := sh.Tool("bash").Call(ctx, &tool.CallContext{}, json.RawMessage(fmt.Sprintf(`{"command":"echo $$ > %s; sleep 60 & : > %s; wait"}`, pidFile, fifo)))
	if res.ExitCode == nil || *res.ExitCode != 128+9 {
		t.Errorf("exit code = %v, want 137", res.ExitCode)
	}
	b, _ := os.ReadFile(pidFile)
	pgid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pgid == 0 || !groupGone(pgid) {
		t.Errorf("process group %d still has processes", pgid)
	}
}

// TestShellHeldOutputUnderGrace_SHELL2_SHELL3: a command that exits before
// lifecycle.shell_grace_secs stays in the foreground even when a process it
// started still holds its output past the grace: the result is the
// foreground one with the held-output note, not a work id.
func TestShellHeldOutputUnderGrace_SHELL2_SHELL3(t *testing.T) {
	sh, el := bgShell(t)
	grace := 1500 * time.Millisecond // less than the 2 s held-output wait
	sh.Grace = &grace
	pidFile := filepath.Join(sh.Workdir, "pid")
	res := call(t, sh.Tool("bash"), nil, fmt.Sprintf(`{"command":"(exec sleep 60) & echo $! > %s; echo early"}`, pidFile))
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	t.Cleanup(func() {
		if pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if workIDRe.MatchString(res.Data) || len(res.Records) != 1 || res.Records[0].Record.EventType() != "shell" {
		t.Fatalf("a command that exited at once moved to the background: %q, records %+v", res.Data, res.Records)
	}
	want := "$ (exec sleep 60) & echo $! > " + pidFile + "; echo early\nExit code: 0\nStdout:\nearly\n\nStderr:\n"
	if res.Data != want {
		t.Errorf("data = %q, want %q", res.Data, want)
	}
	if len(res.Notes) != 1 || res.Notes[0] != "[shell] processes this command started still hold its output; later output is not shown" {
		t.Errorf("notes = %q", res.Notes)
	}
	if ids := sh.Works.Running(); len(ids) != 0 {
		t.Errorf("background commands = %v, want none", ids)
	}
	select {
	case id := <-el.ch:
		t.Errorf("OnExit(%s) for a foreground command", id)
	default:
	}
	if ents, _ := os.ReadDir(sh.LogsDir); len(ents) != 0 {
		t.Errorf("logs/ holds %d files, want none (no background log kept)", len(ents))
	}
}
