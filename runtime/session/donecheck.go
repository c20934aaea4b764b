package session

import (
	"context"
	"os/exec"
	"sync"
	"time"

	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/supervisor"
	"github.com/murmur-go/mur/runtime/toolset"
)

// doneResult is one done_check run (LOOP-14).
type doneResult struct {
	outcome  string // passed, failed, timed_out, stopped, not_started
	code     *int
	tail     string // the output's last 16 KiB
	bytes    int64
	duration time.Duration
}

// tailBuffer keeps the last TailBytes written and counts them all.
type tailBuffer struct {
	mu    sync.Mutex
	buf   []byte
	total int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	b.buf = append(b.buf, p...)
	if len(b.buf) > toolset.TailBytes {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-toolset.TailBytes:]...)
	}
	return len(p), nil
}

// runDoneCheck runs command in the workdir under shell rules (its words,
// the first a shell.allow binary), in its own process group, killed at
// timeoutSecs or when the task is cancelled.
func (t *taskRun) runDoneCheck(ctx context.Context, command string, timeoutSecs int) doneResult {
	s := t.s
	start := s.now()
	res := func(outcome string, code *int, out *tailBuffer) doneResult {
		r := doneResult{outcome: outcome, code: code, duration: s.now().Sub(start)}
		if out != nil {
			out.mu.Lock()
			r.tail, r.bytes = string(out.buf), out.total
			out.mu.Unlock()
		}
		return r
	}
	words, err := proc.SplitWords(command)
	if err != nil || len(words) == 0 {
		return res("not_started", nil, nil)
	}
	path, err := proc.LookPath(words[0], s.env)
	if err != nil {
		return res("not_started", nil, nil)
	}
	out := &tailBuffer{}
	cmd := exec.Command(path, words[1:]...)
	cmd.Args[0] = words[0]
	cmd.Dir, cmd.Env = s.workdir, s.env
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = proc.SysProcAttr()
	cmd.WaitDelay = 2 * time.Second
	p, err := supervisor.Start(cmd, supervisor.Options{DieWithParent: true, Starter: s.sandbox.Start})
	if err != nil {
		return res("not_started", nil, nil)
	}
	timer := time.NewTimer(time.Duration(timeoutSecs) * time.Second)
	defer timer.Stop()
	outcome := ""
	select {
	case <-p.Done():
	case <-timer.C:
		outcome = "timed_out"
	case <-ctx.Done():
		outcome = "stopped"
	}
	if outcome != "" {
		p.Kill()
		<-p.Done()
	}
	code := p.Exit().ShellCode()
	if outcome == "" {
		outcome = "passed"
		if code != 0 {
			outcome = "failed"
		}
	}
	return res(outcome, &code, out)
}
