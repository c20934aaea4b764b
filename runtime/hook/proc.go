package hook

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/murmur-go/mur/runtime/proc"
)

// maxLine is the longest line a hook may write (an answer or a host call).
const maxLine = 1 << 20

// DefaultDeadline is how long one hook call may take when the entry's
// capabilities.limits.deadline_seconds does not say.
const DefaultDeadline = 30 * time.Second

// request is one line the runtime writes on a hook's stdin.
type request struct {
	ID      int64  `json:"id"`
	Event   string `json:"event"`
	Phase   string `json:"phase"` // decide | observe
	Payload any    `json:"payload"`
}

// line is one line a hook writes on its stdout: an answer to request ID
// (Answer set) or a host call (Call set, ID the hook's own).
type line struct {
	ID     json.RawMessage `json:"id"`
	Answer *string         `json:"answer"`
	Reason string          `json:"reason"`
	Value  json.RawMessage `json:"value"`
	Call   string          `json:"call"`
	Params json.RawMessage `json:"params"`
}

// reply is the runtime's answer to a host call, written on the hook's stdin.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// Answer is what one hook call returned: its arm ("none", "deny",
// "reopen-task", "seed-context", …) with its reason or value.
type Answer struct {
	Arm    string
	Reason string
	Value  json.RawMessage
}

// fault is a hook call that returned no answer: the process exited, the
// deadline passed, a line could not be read, or it could not start. Arm
// is hook_dispatch_error's: "error" or "timeout".
type fault struct {
	arm  string
	text string
}

func (f *fault) Error() string { return f.text }

// running is one started hook process.
type running struct {
	cmd     *exec.Cmd
	stdin   *os.File
	lines   chan []byte // stdout, one line each; closed at EOF
	readErr error       // why lines closed early (a line over maxLine); set before close
	waited  <-chan error
	log     *os.File
}

// start starts h's process through its sandbox, stdout read line by line
// by a goroutine that ends at EOF, stderr appended to its log.
func (h *Hook) start() (*running, error) {
	cmd := exec.Command(h.Spec.Command)
	cmd.Dir = h.Spec.Dir
	cmd.Env = h.Spec.Env
	cmd.SysProcAttr = proc.SysProcAttr()
	// Pipes of our own, not StdinPipe/StdoutPipe: the sandbox waits for the
	// process at once, and Wait would close those under the reader.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	var log *os.File
	if h.Spec.Log != "" {
		log, _ = os.OpenFile(h.Spec.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	}
	if log != nil {
		cmd.Stderr = log
	}
	waited, err := h.sandbox.Spawn(cmd)
	inR.Close() // the child holds its own copies now (or never will)
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		if log != nil {
			log.Close()
		}
		return nil, err
	}
	stdin, stdout := inW, outR
	r := &running{cmd: cmd, stdin: stdin, lines: make(chan []byte, 16), waited: waited, log: log}
	go func() { // owned by r: ends at the process's EOF or when it is killed
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), maxLine)
		for sc.Scan() {
			r.lines <- append([]byte(nil), sc.Bytes()...)
		}
		r.readErr = sc.Err()
		stdout.Close()
		close(r.lines)
	}()
	return r, nil
}

// stop kills the process group, closes stdin and waits for the process and
// its reader.
func (r *running) stop() {
	r.stdin.Close()
	if r.cmd.Process != nil {
		proc.KillGroup(r.cmd.Process.Pid, syscall.SIGKILL)
		_ = r.cmd.Process.Kill()
	}
	for range r.lines { // drain so the reader can end
	}
	<-r.waited
	if r.log != nil {
		r.log.Close()
	}
}

// exitText is how a process that closed its stdout ended, after a bound.
func (r *running) exitText() string {
	r.stdin.Close()
	select {
	case err := <-r.waited:
		r.waited = closedErr(err)
		var ee *exec.ExitError
		switch {
		case err == nil:
			return "the hook exited (exit code 0) without answering"
		case errors.As(err, &ee):
			return fmt.Sprintf("the hook exited (exit code %d) without answering", proc.ExitCode(ee.ProcessState))
		}
		return "the hook ended without answering: " + err.Error()
	case <-time.After(time.Second):
		return "the hook closed its output without answering"
	}
}

// closedErr is a channel that yields err again, for stop's wait.
func closedErr(err error) <-chan error {
	c := make(chan error, 1)
	c <- err
	return c
}

// Hook is one hook of a session: its spec and its process, started at the
// first call and again after a fault killed it. Calls are serialized.
type Hook struct {
	Spec    Spec
	sandbox *proc.Sandbox
	host    Host

	mu  sync.Mutex // one call at a time; guards p and seq
	p   *running
	seq int64
}

// deadline is the hook's per-call deadline.
func (h *Hook) deadline() time.Duration {
	if h.Spec.DeadlineSecs > 0 {
		return time.Duration(h.Spec.DeadlineSecs) * time.Second
	}
	return DefaultDeadline
}

// call sends one event and waits for its answer, serving the hook's host
// calls meanwhile. A fault kills the process; the next call restarts it.
func (h *Hook) call(ctx context.Context, event, phase string, payload any) (Answer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.p == nil {
		p, err := h.start()
		if err != nil {
			return Answer{}, &fault{arm: "error", text: "the hook could not start: " + proc.StartErrText(err)}
		}
		h.p = p
	}
	a, err := h.exchange(ctx, event, phase, payload)
	if err != nil {
		h.p.stop()
		h.p = nil
	}
	return a, err
}

// exchange is one call on a started process.
func (h *Hook) exchange(ctx context.Context, event, phase string, payload any) (Answer, error) {
	p := h.p
	h.seq++
	id := h.seq
	d := h.deadline()
	// The deadline holds for writing too: a hook that reads nothing cannot
	// block the call on a full pipe.
	_ = p.stdin.SetWriteDeadline(time.Now().Add(d))
	if err := writeLine(p.stdin, request{ID: id, Event: event, Phase: phase, Payload: payload}); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return Answer{}, &fault{arm: "timeout", text: fmt.Sprintf("the hook did not answer within %s", fmtSecs(d))}
		}
		return Answer{}, &fault{arm: "error", text: p.exitText()}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	want := fmt.Sprint(id)
	for {
		select {
		case b, ok := <-p.lines:
			if !ok {
				if p.readErr != nil {
					return Answer{}, &fault{arm: "error", text: "the hook's output could not be read: " + p.readErr.Error()}
				}
				return Answer{}, &fault{arm: "error", text: p.exitText()}
			}
			var l line
			if err := json.Unmarshal(b, &l); err != nil {
				return Answer{}, &fault{arm: "error", text: "the hook's output could not be read: not a JSON object"}
			}
			if l.Call != "" {
				res, herr := h.host.HostCall(cctx, h, l.Call, l.Params)
				r := reply{ID: l.ID, Result: res}
				if herr != nil {
					r = reply{ID: l.ID, Error: herr.Error()}
				}
				if err := writeLine(p.stdin, r); err != nil {
					return Answer{}, &fault{arm: "error", text: p.exitText()}
				}
				continue
			}
			if l.Answer == nil || string(l.ID) != want {
				return Answer{}, &fault{arm: "error", text: "the hook's output could not be read: a line that is neither the answer to request " + want + " nor a host call"}
			}
			return Answer{Arm: *l.Answer, Reason: l.Reason, Value: l.Value}, nil
		case <-timer.C:
			return Answer{}, &fault{arm: "timeout", text: fmt.Sprintf("the hook did not answer within %s", fmtSecs(d))}
		case <-ctx.Done():
			return Answer{}, &fault{arm: "error", text: "the call ended before the hook answered"}
		}
	}
}

// fmtSecs is a deadline as "<n> s".
func fmtSecs(d time.Duration) string {
	return fmt.Sprintf("%d s", int(d/time.Second))
}

// writeLine writes v as one JSON line.
func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// close ends the hook's process, if running.
func (h *Hook) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.p != nil {
		h.p.stop()
		h.p = nil
	}
}
