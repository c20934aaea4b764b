package plan

import (
	"context"
	"io"
	"os/exec"
	"sync"
	"syscall"

	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// shellStep runs a shell step (PLAN-2): the command line split into words,
// no shell, its first word re-checked against capabilities.shell.allow, in
// the accessible workdir with the session's environment and its own process
// group, which a cancel or a stopped plan kills. The output is stdout and
// stderr in the order read; a non-zero exit fails the step. It writes a
// shell record like a shell tool call.
func (r *planRun) shellStep(ctx context.Context, s *planStep) attemptResult {
	sh := r.t.cfg.Shell
	words, err := proc.SplitWords(s.Shell)
	if err != nil || len(words) == 0 {
		return attemptResult{err: planShellUnreadable(s.ID, "it is empty")}
	}
	bin := words[0]
	if sh == nil || sh.Allowed == nil || !sh.Allowed(bin) {
		return attemptResult{err: planShellNotAllowed(s.ID, bin)}
	}
	path, err := proc.LookPath(bin, sh.Env)
	if err != nil {
		return attemptResult{err: proc.Unstartable(bin, err.Error())}
	}
	if denied := r.cc.Gated(ctx, tool.ShellCommand{Binary: bin, Path: path, Argv: words, Command: s.Shell}); denied != nil {
		return attemptResult{err: denied.Data}
	}
	cmd := exec.Command(path, words[1:]...)
	cmd.Args[0] = bin
	cmd.Dir = sh.Workdir
	cmd.Env = sh.Env
	cmd.SysProcAttr = proc.SysProcAttr()
	out := &combined{}
	start := r.t.now()
	p, err := proc.Start(sh.Sandbox, cmd, out.stream(&out.outBytes), out.stream(&out.errBytes), r.t.now)
	if err != nil {
		return attemptResult{err: proc.Unstartable(bin, proc.StartErrText(err))}
	}
	select {
	case <-p.Exited():
	case <-ctx.Done():
		proc.KillGroup(cmd.Process.Pid, syscall.SIGKILL)
	}
	<-p.Done()
	code := proc.ExitCode(p.Cmd.ProcessState)
	r.mu.Lock()
	r.shells++
	r.recs = append(r.recs, tool.Rec{Record: trace.Shell{Turn: r.cc.Turn, TaskID: r.cc.TaskID,
		Binary: bin, Command: s.Shell, ExitCode: code,
		StdoutBytes: out.count(&out.outBytes), StderrBytes: out.count(&out.errBytes),
		DurationMS: p.ExitAt.Sub(start).Milliseconds()}})
	r.mu.Unlock()
	text := out.text()
	if code != 0 {
		return attemptResult{output: &text, err: stepExit(code)}
	}
	return attemptResult{output: &text}
}

// combined holds a command's two streams in the order read, keeping at most
// CutLimit+1 bytes (the report cuts at 64 KiB, TOOL-10) and counting all.
type combined struct {
	mu                 sync.Mutex
	buf                []byte
	outBytes, errBytes int64
}

func (c *combined) stream(n *int64) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		*n += int64(len(p))
		if room := tool.CutLimit + 1 - len(c.buf); room > 0 {
			c.buf = append(c.buf, p[:min(room, len(p))]...)
		}
		return len(p), nil
	})
}

func (c *combined) count(n *int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return *n
}

func (c *combined) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, _ := tool.Cut64(string(c.buf))
	return s
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
