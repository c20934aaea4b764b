package shell

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/murmur-go/mur/runtime/proc"
)

// Grace periods of a stop (BG-1) and of the session end (SES-8).
const (
	stopKillAfter = 2 * time.Second
	stopWaitMore  = 3 * time.Second
)

// CloseGraceEnv names the test builds' override of the session end's grace
// (SES-8): MURMUR_TEST_SHELL_CLOSE_GRACE=<duration>, read only by a mur built
// with the murtest tag (internal/testmur builds so).
const CloseGraceEnv = "MURMUR_TEST_SHELL_CLOSE_GRACE"

// shownTail is BG-2's output_shown for output past TailBytes.
const shownTail = "last 16384 bytes"

// Work is one command that moved to the background (SHELL-2, BG-*).
type Work struct {
	ID      string
	Binary  string
	Command string
	LogPath string // absolute: logs/<work_id>.log

	mu        sync.Mutex
	log       *os.File
	bytes     int64
	logErr    error
	start     time.Time
	pgid      int
	done      chan struct{} // closed once the command has exited
	end       time.Time
	exitCode  int
	held      bool   // output still held after exit (SHELL-3 note)
	waitErr   string // BG-2 wait_error
	stopped   bool   // a stop reached it
	returned  bool   // background-command returned its exit (BG-3)
	waiters   int    // background-command calls waiting on it now
	abandoned bool   // killed at session end: shell_abandoned, not shell_completed
}

// Done is closed once the command has exited.
func (w *Work) Done() <-chan struct{} { return w.done }

// write appends read output to the log (both streams, in the order read).
func (w *Work) write(p []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bytes += int64(len(p))
	if w.log == nil || w.logErr != nil {
		return
	}
	if _, err := w.log.Write(p); err != nil {
		w.logErr = err
	}
}

// discard removes the log of a command that never moved to the background.
func (w *Work) discard() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.log != nil {
		w.log.Close()
		w.log = nil
		os.Remove(w.LogPath)
	}
}

// Ended reports whether the command has exited, and with which code.
func (w *Work) Ended() (code int, ok bool) {
	select {
	case <-w.done:
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.exitCode, true
	default:
		return 0, false
	}
}

// Snapshot is a Work's state at one moment (BG-2, REC-2, shell_completed).
type Snapshot struct {
	State       string // running, exited, stopped
	ElapsedSecs int64
	ExitCode    *int
	Status      string // ok, error; "" while running
	WaitError   string
	OutputBytes int64
	Held        bool
	Duration    time.Duration
}

// Snapshot reads the work's state at now.
func (w *Work) Snapshot(now time.Time) Snapshot {
	code, ended := w.Ended()
	w.mu.Lock()
	defer w.mu.Unlock()
	s := Snapshot{State: "running", OutputBytes: w.bytes, WaitError: w.waitErr, Held: w.held}
	if w.logErr != nil && s.WaitError == "" {
		s.WaitError = "writing the log failed: " + w.logErr.Error()
	}
	end := now
	if ended {
		end = w.end
		s.State = "exited"
		if w.stopped {
			s.State = "stopped"
		}
		c := code
		s.ExitCode = &c
		s.Status = "error"
		if code == 0 && s.WaitError == "" {
			s.Status = "ok"
		}
	}
	s.Duration = end.Sub(w.start)
	s.ElapsedSecs = int64(s.Duration / time.Second)
	return s
}

// Report is BG-2's text at now; waited is set for a wait operation.
func (w *Work) Report(now time.Time, waited *time.Duration) string {
	s := w.Snapshot(now)
	lines := []string{
		"work_id: " + w.ID,
		"state: " + s.State,
		fmt.Sprintf("elapsed_secs: %d", s.ElapsedSecs),
	}
	if waited != nil {
		lines = append(lines, fmt.Sprintf("waited_secs: %d", int64(*waited/time.Second)))
	}
	if s.ExitCode != nil {
		lines = append(lines, fmt.Sprintf("exit_code: %d", *s.ExitCode), "status: "+s.Status)
	}
	if s.WaitError != "" {
		lines = append(lines, "wait_error: "+s.WaitError)
	}
	tail, total := w.tail()
	shown := "all"
	if total > TailBytes {
		shown = shownTail
	}
	lines = append(lines,
		"output: "+w.LogPath,
		fmt.Sprintf("output_bytes: %d", total),
		"output_shown: "+shown,
		"",
		tail,
	)
	return strings.Join(lines, "\n")
}

// tail reads the log's last TailBytes and the bytes logged so far.
func (w *Work) tail() (string, int64) {
	w.mu.Lock()
	total := w.bytes
	w.mu.Unlock()
	f, err := os.Open(w.LogPath)
	if err != nil {
		return "", total
	}
	defer f.Close()
	off := total - TailBytes
	if off < 0 {
		off = 0
	}
	b, _ := io.ReadAll(io.NewSectionReader(f, off, total-off))
	return string(b), total
}

// Works is one session's table of background commands. Safe for concurrent use.
type Works struct {
	// OnExit is called once per command that exits on its own (not killed at
	// session end), from the goroutine that reaped it; the session writes
	// shell_completed and may start a completion task (SHELL-3). returned tells
	// whether background-command already returned (or is returning) its exit.
	OnExit func(w *Work, returned bool)
	Now    func() time.Time

	mu      sync.Mutex
	byID    map[string]*Work
	order   []*Work
	closing bool
	wg      sync.WaitGroup
}

func (ws *Works) now() time.Time {
	if ws.Now != nil {
		return ws.Now()
	}
	return time.Now()
}

// prepare mints a work id and opens its log before the command starts, so
// output read before it moves to the background is kept in order.
func (ws *Works) prepare(logsDir, bin, command string) (*Work, error) {
	id := NewWorkID()
	path, err := filepath.Abs(filepath.Join(logsDir, id+".log"))
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	return &Work{ID: id, Binary: bin, Command: command, LogPath: path, log: f, done: make(chan struct{})}, nil
}

// adopt takes a started command into the table; its reaper waits for p.
func (ws *Works) adopt(w *Work, p *proc.Proc, start time.Time) {
	w.start = start
	w.pgid = p.Cmd.Process.Pid
	ws.mu.Lock()
	if ws.byID == nil {
		ws.byID = map[string]*Work{}
	}
	ws.byID[w.ID] = w
	ws.order = append(ws.order, w)
	ws.mu.Unlock()
	ws.wg.Go(func() {
		<-p.Done()
		w.mu.Lock()
		w.end = p.ExitAt // the exit, not the end of a held-output wait
		w.exitCode = proc.ExitCode(p.Cmd.ProcessState)
		w.held = p.Held
		if p.WaitErr != nil && w.waitErr == "" {
			w.waitErr = p.WaitErr.Error() // BG-2 wait_error
		}
		if w.log != nil {
			if cerr := w.log.Close(); cerr != nil && w.logErr == nil {
				w.logErr = cerr
			}
		}
		returned := w.returned || w.waiters > 0
		w.returned = returned
		abandoned := w.abandoned
		close(w.done) // under mu: Close sees done and abandoned consistently
		w.mu.Unlock()
		if !abandoned && ws.OnExit != nil {
			ws.OnExit(w, returned)
		}
	})
}

// Get returns the work with id, or nil.
func (ws *Works) Get(id string) *Work {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.byID[id]
}

// Running returns the ids of commands still running, in start order (BG-3).
func (ws *Works) Running() []string {
	ws.mu.Lock()
	all := append([]*Work(nil), ws.order...)
	ws.mu.Unlock()
	var ids []string
	for _, w := range all {
		if _, ended := w.Ended(); !ended {
			ids = append(ids, w.ID)
		}
	}
	return ids
}

// Stop sends SIGTERM to w's process group, SIGKILL 2 s later if it still runs,
// then waits up to 3 s more (BG-1). Nothing is sent to an exited command.
func (ws *Works) Stop(w *Work) {
	if _, ended := w.Ended(); ended {
		return
	}
	w.mu.Lock()
	w.stopped = true
	w.waiters++ // the stop returns the exit: no completion task (BG-3)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.waiters--
		w.mu.Unlock()
	}()
	proc.KillGroup(w.pgid, syscall.SIGTERM)
	t := time.NewTimer(stopKillAfter)
	defer t.Stop()
	select {
	case <-w.done:
		return
	case <-t.C:
	}
	proc.KillGroup(w.pgid, syscall.SIGKILL)
	t.Reset(stopWaitMore)
	select {
	case <-w.done:
	case <-t.C:
	}
}

// Abandoned is a command killed at session end (shell_abandoned).
type Abandoned struct {
	Work      *Work
	RunningMS int64
}

// Close kills every running command's group at session end (SIGTERM, SIGKILL
// after 2 s; SES-8), waits for every reaper, and returns the ones it killed,
// in start order. Later exits call no OnExit.
func (ws *Works) Close() []Abandoned {
	ws.mu.Lock()
	ws.closing = true
	all := append([]*Work(nil), ws.order...)
	ws.mu.Unlock()
	var out []Abandoned
	now := ws.now()
	for _, w := range all {
		w.mu.Lock()
		select {
		case <-w.done:
			w.mu.Unlock()
			continue
		default:
		}
		w.abandoned = true
		w.mu.Unlock()
		out = append(out, Abandoned{Work: w, RunningMS: now.Sub(w.start).Milliseconds()})
		proc.KillGroup(w.pgid, syscall.SIGTERM)
	}
	if len(out) > 0 {
		// One grace for all of them: a closed channel, so every command still
		// running once it passes is killed, not only the first (SES-8).
		graceOver := make(chan struct{})
		grace := time.AfterFunc(closeGrace(), func() { close(graceOver) })
		defer grace.Stop()
		for _, a := range out {
			select {
			case <-a.Work.done:
			case <-graceOver:
			}
		}
		for _, a := range out {
			if _, ended := a.Work.Ended(); !ended {
				proc.KillGroup(a.Work.pgid, syscall.SIGKILL)
			}
		}
	}
	ws.wg.Wait()
	return out
}
