package proc

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// HeldOutputWait is how long output held by a command's children is waited
// for after the command exits (SHELL-3).
const HeldOutputWait = 2 * time.Second

// Proc is a started command whose two streams the runtime reads itself, so
// that the command's exit is seen when its process exits, not when the last
// process holding its output lets go (SHELL-2, SHELL-3): a command that exits
// before lifecycle.shell_grace_secs never moves to the background, whatever
// its children still hold.
type Proc struct {
	Cmd    *exec.Cmd
	exited chan struct{} // closed when the process has exited and been reaped
	done   chan struct{} // closed once its output is read to EOF or given up

	// ExitAt and WaitErr are set before Exited is closed. WaitErr is
	// cmd.Wait's error other than a non-zero exit.
	ExitAt  time.Time
	WaitErr error
	// Held is set before Done is closed: output was still held
	// HeldOutputWait after the exit (SHELL-3's note).
	Held bool
}

// Exited is closed when the process has exited and been reaped.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Done is closed once the output is read to EOF or given up, at most
// HeldOutputWait after the exit.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Start starts cmd through sb (nil: unconfined) with its stdout and stderr
// copied to the two writers and returns once it runs; now stamps the exit.
// Nothing of cmd's own stdio fields may be set. Its goroutines end by
// themselves once Done is closed.
func Start(sb *Sandbox, cmd *exec.Cmd, stdout, stderr io.Writer, now func() time.Time) (*Proc, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	waited, err := sb.Spawn(cmd)
	// The child holds its own copies now (or never will).
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &Proc{Cmd: cmd, exited: make(chan struct{}), done: make(chan struct{})}
	var copies sync.WaitGroup
	copies.Go(func() { _, _ = io.Copy(stdout, outR) })
	copies.Go(func() { _, _ = io.Copy(stderr, errR) })
	drained := make(chan struct{})
	go func() { // ends with the copies, which end at EOF or when closed below
		copies.Wait()
		close(drained)
	}()
	go func() { // ends once the output is drained or given up, ≤ HeldOutputWait after the exit
		err := <-waited
		p.ExitAt = now()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			p.WaitErr = err
		}
		close(p.exited)
		t := time.NewTimer(HeldOutputWait)
		defer t.Stop()
		select {
		case <-drained:
		case <-t.C:
			p.Held = true
			outR.Close() // the copies return; a later write gets EPIPE
			errR.Close()
			<-drained
		}
		outR.Close()
		errR.Close()
		close(p.done)
	}()
	return p, nil
}
