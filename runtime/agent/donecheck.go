package agent

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/supervisor"
)

// DoneCheck is lifecycle.done_check's command as the loop runs it after an
// answer (LOOP-14): under shell rules (its words, the first found on the
// tools' PATH), in the workdir, in its own process group, killed at Timeout
// or when the task is cancelled.
type DoneCheck struct {
	Command string
	Timeout time.Duration
	Dir     string
	Env     []string
	// Start starts the prepared command (the tools' sandbox).
	Start func(*exec.Cmd) error
	// Keep is how many bytes of the output's tail the result keeps.
	Keep int
	Now  func() time.Time
}

// DoneResult is one done_check run (LOOP-14).
type DoneResult struct {
	Outcome  string // passed, failed, timed_out, stopped, not_started
	Code     *int
	Tail     string // the output's last Keep bytes
	Bytes    int64
	Duration time.Duration
}

// Run runs the command once.
func (d DoneCheck) Run(ctx context.Context) DoneResult {
	start := d.Now()
	res := func(outcome string, code *int, out *tailBuffer) DoneResult {
		r := DoneResult{Outcome: outcome, Code: code, Duration: d.Now().Sub(start)}
		if out != nil {
			out.mu.Lock()
			r.Tail, r.Bytes = string(out.buf), out.total
			out.mu.Unlock()
		}
		return r
	}
	words, err := proc.SplitWords(d.Command)
	if err != nil || len(words) == 0 {
		return res("not_started", nil, nil)
	}
	path, err := proc.LookPath(words[0], d.Env)
	if err != nil {
		return res("not_started", nil, nil)
	}
	out := &tailBuffer{keep: d.Keep}
	cmd := exec.Command(path, words[1:]...)
	cmd.Args[0] = words[0]
	cmd.Dir, cmd.Env = d.Dir, d.Env
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = proc.SysProcAttr()
	cmd.WaitDelay = 2 * time.Second
	p, err := supervisor.Start(cmd, supervisor.Options{DieWithParent: true, Starter: d.Start})
	if err != nil {
		return res("not_started", nil, nil)
	}
	timer := time.NewTimer(d.Timeout)
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

// tailBuffer keeps the last keep bytes written and counts them all.
type tailBuffer struct {
	keep  int
	mu    sync.Mutex
	buf   []byte
	total int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.keep {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.keep:]...)
	}
	return len(p), nil
}

// DoneCheckEnded is `\`<command>\` ended <outcome>, exit code <n|none>`, the
// part LOOP-14's reopen message and the failed task's reason share.
func DoneCheckEnded(command, outcome string, code *int) string {
	c := "none"
	if code != nil {
		c = fmt.Sprint(*code)
	}
	return fmt.Sprintf("`%s` ended %s, exit code %s", command, outcome, c)
}

// DoneCheckMessage is LOOP-14's reopen message.
func DoneCheckMessage(command, outcome string, code *int, tail string) string {
	return "[done_check] " + DoneCheckEnded(command, outcome, code) + "; its last output:\n" + tail
}
