package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/murhome"
)

// stopDoor is a door that answers session/stop: before answering it appends
// the canceled tasks' endings to the trace, as a session would (LOOP-16).
type stopDoor struct {
	url   string
	mu    sync.Mutex
	calls []http.Header // request headers of each session/stop call
}

func newStopDoor(t *testing.T, ses, trace string) *stopDoor {
	t.Helper()
	d := &stopDoor{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || req.Method != "session/stop" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		d.mu.Lock()
		d.calls = append(d.calls, r.Header.Clone())
		d.mu.Unlock()
		f, err := os.OpenFile(trace, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
		if err == nil {
			f.WriteString(`{"event_type":"task_canceled","task_id":"tsk_1","phase":"turn"}` + "\n")
			f.WriteString(`{"event_type":"task_end","task_id":"tsk_1","exit_status":"canceled"}` + "\n")
			f.WriteString(`{"event_type":"task_canceled","task_id":"tsk_2","phase":"queued"}` + "\n")
			f.Close()
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"session_id":"` + ses + `","canceled":["tsk_1","tsk_2"],"residue":[]}}`))
	}))
	t.Cleanup(srv.Close)
	d.url = srv.URL
	return d
}

func (d *stopDoor) headers() []http.Header {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls
}

// startReady starts `sh -c script` whose first stdout line says it is set
// up, and waits for that line.
func startReady(t *testing.T, script string) *fakeProc {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := testmur.StartFake(cmd); err != nil {
		t.Fatal(err)
	}
	p := &fakeProc{cmd: cmd, exited: make(chan struct{})}
	line, _ := bufio.NewReader(out).ReadString('\n')
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
		if murhome.Check(cmd.Process.Pid, p.start) != murhome.Gone {
			t.Errorf("pid %d is still running after the test", cmd.Process.Pid)
		}
	})
	if line != "ready\n" {
		t.Fatalf("process said %q, want ready", line)
	}
	if p.start, err = murhome.StartTime(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	return p
}

func (e *opsEnv) sessionRecords(t *testing.T, ses string) (dir, trace string) {
	t.Helper()
	dir = e.addTrace(t, ses, filepath.Join(traceFixtures, "single.jsonl"))
	return dir, filepath.Join(dir, "trace.jsonl")
}

// TestStopSIGTERMCLI13: session/stop with the operator token, the canceled
// tasks' endings, SIGTERM to the verified pid, the exact stdout block.
func TestStopSIGTERMCLI13(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	ses := sesID("019a40000000", "5e1")
	dir, trace := e.sessionRecords(t, ses)
	door := newStopDoor(t, ses, trace)
	p := startProc(t, "exec sleep 300")
	e.writeRecord(t, &murhome.Running{SessionID: ses, PID: p.pid(), ProcessStart: p.start, URL: door.url, RecordsDir: dir,
		Tokens: murhome.Tokens{{Name: "operator", Value: "op-secret"}, {Name: "ci", Value: "ci-secret"}}})

	out, errOut, code := e.run(t, "stop", "05E1")
	want := "stopped: " + ses + "\ncapsule: hello-shell@0.1.0\nsignal:  SIGTERM\ncanceled: tsk_1\ncanceled: tsk_2\nresidue: nothing else was left running\n"
	if code != 0 || out != want || errOut != "" {
		t.Errorf("mur stop = %d, %q, %q; want 0, %q", code, out, errOut, want)
	}
	if sig := p.signaled(); sig != syscall.SIGTERM {
		t.Errorf("process ended by signal %v, want SIGTERM", sig)
	}
	hs := door.headers()
	if len(hs) != 1 || hs[0].Get("Authorization") != "Bearer op-secret" || hs[0].Get("A2A-Version") != "1.0" {
		t.Errorf("session/stop calls = %v, want one with the operator token and A2A-Version 1.0", hs)
	}
	if e.recordExists(ses) {
		t.Error("the running record is still there after mur stop")
	}
}

// TestStopSIGKILLCLI13: a process that ignores SIGTERM is killed after
// --timeout (0: at once); a public door gets no Authorization header.
func TestStopSIGKILLCLI13(t *testing.T) {
	t.Parallel()
	for _, timeout := range []string{"0", "1"} {
		t.Run("timeout="+timeout, func(t *testing.T) {
			t.Parallel()
			e := newOpsEnv(t)
			ses := sesID("019a40000001", "5e2")
			dir, trace := e.sessionRecords(t, ses)
			door := newStopDoor(t, ses, trace)
			p := startReady(t, `trap "" TERM; echo ready; exec sleep 300`)
			e.writeRecord(t, &murhome.Running{SessionID: ses, PID: p.pid(), ProcessStart: p.start, URL: door.url, RecordsDir: dir})

			out, errOut, code := e.run(t, "stop", "--timeout", timeout, ses)
			want := "stopped: " + ses + "\ncapsule: hello-shell@0.1.0\nsignal:  SIGKILL after " + timeout + "s\n" +
				"canceled: tsk_1\ncanceled: tsk_2\nresidue: nothing else was left running\n"
			if code != 0 || out != want || errOut != "" {
				t.Errorf("mur stop = %d, %q, %q; want 0, %q", code, out, errOut, want)
			}
			if sig := p.signaled(); sig != syscall.SIGKILL {
				t.Errorf("process ended by signal %v, want SIGKILL", sig)
			}
			if hs := door.headers(); len(hs) != 1 || hs[0].Get("Authorization") != "" {
				t.Errorf("session/stop calls = %v, want one without Authorization", hs)
			}
			if e.recordExists(ses) {
				t.Error("the running record is still there after SIGKILL")
			}
		})
	}
}

// TestStopDoorSilentCLI13: the door cannot be asked; the process is still
// ended and the residue is unknown.
func TestStopDoorSilentCLI13(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	ses := sesID("019a40000002", "5e3")
	p := startProc(t, "exec sleep 300")
	e.writeRecord(t, &murhome.Running{SessionID: ses, PID: p.pid(), ProcessStart: p.start, URL: silentURL(t)})
	out, errOut, code := e.run(t, "stop", "@1")
	head := "stopped: " + ses + "\ncapsule: hello-shell@0.1.0\nsignal:  SIGTERM\nresidue: unknown — the capsule could not be asked: session/stop: the door did not answer: "
	if code != 0 || !strings.HasPrefix(out, head) || strings.Count(out, "\n") != 4 || errOut != "" {
		t.Errorf("mur stop = %d, %q, %q; want 0 and a block starting %q", code, out, errOut, head)
	}
	if sig := p.signaled(); sig != syscall.SIGTERM {
		t.Errorf("process ended by signal %v, want SIGTERM", sig)
	}
}

// TestStopUnconfirmedPIDCLI13: an unconfirmed pid is never signalled.
func TestStopUnconfirmedPIDCLI13(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	hint22 := "  hint: mur ps lists the running sessions\n"
	p := startProc(t, "exec sleep 300")
	gonePID, goneStart := goneProc(t)
	door := newStopDoor(t, "ses_x", filepath.Join(e.workdir, "unused.jsonl"))
	gone, reused, unknown := sesID("019a40000003", "1"), sesID("019a40000003", "2"), sesID("019a40000003", "3")
	e.writeRecord(t, &murhome.Running{SessionID: gone, PID: gonePID, ProcessStart: goneStart, URL: door.url})
	e.writeRecord(t, &murhome.Running{SessionID: reused, PID: p.pid(), ProcessStart: p.start + "1", URL: door.url})
	e.writeRecord(t, &murhome.Running{SessionID: unknown, PID: p.pid(), ProcessStart: "", URL: door.url})

	cases := []struct {
		ses, stderr string
		kept        bool
	}{
		{gone, "error[E-RUN-022]: " + gone + " is not running: no process holds pid " + itoa(gonePID) + "\n" + hint22, false},
		{reused, "error[E-RUN-022]: " + reused + " is not running: pid " + itoa(p.pid()) + " is held by a process that started at another time\n" + hint22, false},
		{unknown, "error[E-RUN-024]: " + unknown + " could not be ended: pid " + itoa(p.pid()) + "'s start time could not be read\n" +
			"  hint: the capsule is still running and its record is kept\n", true},
	}
	for _, c := range cases {
		out, errOut, code := e.run(t, "stop", c.ses)
		if code != 1 || out != "" || errOut != c.stderr {
			t.Errorf("mur stop %s = %d, %q, %q; want 1, %q", c.ses, code, out, errOut, c.stderr)
		}
		if e.recordExists(c.ses) != c.kept {
			t.Errorf("record of %s kept = %v, want %v", c.ses, !c.kept, c.kept)
		}
	}
	if murhome.Check(p.pid(), p.start) != murhome.Alive {
		t.Error("an unconfirmed pid was signalled")
	}
	if n := len(door.headers()); n != 0 {
		t.Errorf("the door was asked %d times, want never", n)
	}
}

func TestStopUsageCLI13(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"stop"}, "error: missing argument: the session or formation to stop\n"},
		{[]string{"stop", "@1", "@2"}, "error: unexpected argument '@2'\n"},
		{[]string{"stop", "@1", "--timeout", "-1"}, "error: --timeout must be 0 or more seconds, not -1\n"},
		{[]string{"stop", "--timeout", "soon", "@1"}, "error: invalid value \"soon\" for flag -timeout: parse error\n"},
	}
	for _, c := range cases {
		out, errOut, code := e.run(t, c.args...)
		if want := c.want + "run 'mur stop --help' for usage\n"; code != 2 || out != "" || errOut != want {
			t.Errorf("mur %v = %d, %q, %q; want 2, %q", c.args, code, out, errOut, want)
		}
	}
	if out, _, code := e.run(t, "stop", "--help"); code != 0 || !strings.HasPrefix(out, "Usage: mur stop <session> [--timeout <seconds>] [--json]\n") {
		t.Errorf("mur stop --help = %d, %q", code, out)
	}
}
