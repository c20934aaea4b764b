package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	goruntime "runtime"
	"sync"
	"syscall"
	"time"

	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/supervisor"
)

// MaxLine is the longest stdout line a run reads (PROC-9); a longer
// one is cut there and the rest of it skipped.
const MaxLine = 64 << 20

// Spawn is one harness process to start (PROC-9).
type Spawn struct {
	Argv   []string // Argv[0] is the absolute path of the binary
	Env    []string // the whole environment (PROC-8)
	Dir    string   // the accessible workdir
	Stdin  []byte   // the prompt, written to a pipe then closed
	Stderr *os.File // appended to; nil discards
	// Sandbox starts the process; nil starts it unconfined. A confined
	// harness starts through the trampoline as a tool process does.
	Sandbox *proc.Sandbox
}

// Process is a running harness: its own process group, its stdout read
// line by line. Start it with Start; Lines delivers stdout, Done closes once
// the process has exited and anything left in its group was killed and the
// leader reaped. Its methods are safe for concurrent use.
type Process struct {
	pid   int
	lines chan []byte
	done  chan struct{}
	wg    sync.WaitGroup // the waiter and the reader

	mu     sync.Mutex
	reaped bool // set before the leader is reaped: no signal after it
	kill   *time.Timer
	state  *os.ProcessState
	werr   error
}

// Start spawns s in its own process group with, on Linux, SIGKILL as its
// parent-death signal (PROC-9). The spawn and the wait run on one goroutine
// locked to its OS thread, because the parent-death signal follows the
// thread that forked, not the process.
func Start(s Spawn) (*Process, error) {
	if len(s.Argv) == 0 {
		return nil, errors.New("harness: empty argv")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	cmd := &exec.Cmd{Path: s.Argv[0], Args: s.Argv, Env: s.Env, Dir: s.Dir,
		Stdin: bytes.NewReader(s.Stdin), Stdout: w, SysProcAttr: sysProcAttr()}
	if s.Stderr != nil {
		cmd.Stderr = s.Stderr
	}
	// lines is unbuffered beyond a few lines: the reader waits for the
	// consumer, and a harness that writes faster blocks on its pipe.
	p := &Process{lines: make(chan []byte, 16), done: make(chan struct{})}
	started := make(chan error, 1) // the waiter's one report of Start
	p.wg.Go(func() {
		goruntime.LockOSThread()
		defer goruntime.UnlockOSThread()
		if err := s.Sandbox.Start(cmd); err != nil {
			started <- err
			return
		}
		p.pid = cmd.Process.Pid
		started <- nil
		werr := waitGroup(cmd, p.endGroup)
		p.mu.Lock()
		p.state, p.werr = cmd.ProcessState, werr
		p.mu.Unlock()
		close(p.done)
	})
	if err := <-started; err != nil {
		r.Close()
		w.Close()
		p.wg.Wait()
		return nil, err
	}
	w.Close() // the child holds its own copy
	p.wg.Go(func() {
		defer r.Close()
		defer close(p.lines)
		readLines(r, p.lines)
	})
	return p, nil
}

// endGroup kills what is left in the group once the leader has exited
// (PROC-9) and stops any later signal: the group id may be reused after
// the leader is reaped.
func (p *Process) endGroup() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reaped = true
	if p.kill != nil {
		p.kill.Stop()
	}
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
}

// readLines sends each line of r, without its newline, cut at MaxLine.
func readLines(r io.Reader, out chan<- []byte) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over {
			line = append(line, chunk...)
			if len(line) > MaxLine {
				line, over = line[:MaxLine], true
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 || err == nil {
			out <- bytes.TrimSuffix(line, []byte("\n"))
		}
		line, over = nil, false
		if err != nil {
			return
		}
	}
}

// PID is the process's pid, which is also its process group id.
func (p *Process) PID() int { return p.pid }

// Lines delivers stdout's lines in order; it is closed at EOF, which comes
// once the whole group has closed stdout. A caller must drain it.
func (p *Process) Lines() <-chan []byte { return p.lines }

// Done is closed once the process has exited, its group has been killed
// and the leader reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Interrupt asks the harness to stop (PROC-16): SIGTERM to its group now,
// SIGKILL to the group after grace unless it has exited by then. Later
// calls do nothing.
func (p *Process) Interrupt(grace time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped || p.kill != nil {
		return
	}
	_ = syscall.Kill(-p.pid, syscall.SIGTERM)
	p.kill = time.AfterFunc(grace, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.reaped {
			_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		}
	})
}

// Kill sends SIGKILL to the group at once (the session ending after a
// second signal).
func (p *Process) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
}

// Exit is how the process ended; call it after Done.
type Exit struct {
	Code   *int   // nil when a signal ended it
	Signal string // e.g. "SIGTERM", "" when it exited
}

// Wait waits for Done and for stdout to be drained by the caller, and
// returns how the process ended.
func (p *Process) Wait() Exit {
	<-p.done
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return exitOf(p.state)
}

// String is "exited with status N" or "was killed by signal N", for
// HEV-7's "no terminal line" message.
func (e Exit) String() string {
	if e.Code != nil {
		return fmt.Sprintf("status %d", *e.Code)
	}
	return "signal " + e.Signal
}

// exitOf is ps as the harness's records name it.
func exitOf(ps *os.ProcessState) Exit {
	e := supervisor.ExitOf(ps)
	switch {
	case e.Signal != 0:
		return Exit{Signal: supervisor.SignalName(e.Signal)}
	case e.Code >= 0:
		return Exit{Code: &e.Code}
	}
	return Exit{}
}
