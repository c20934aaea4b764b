package tools

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// proc is a started shell command whose two streams the runtime reads
// itself, so that the command's exit is seen when its process exits, not
// when the last process holding its output lets go (SHELL-2, SHELL-3): a
// command that exits before lifecycle.shell_grace_secs never moves to the
// background, whatever its children still hold.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has exited and been reaped
	done   chan struct{} // closed once its output is read to EOF or given up

	// Set before exited is closed.
	exitAt  time.Time
	waitErr error // cmd.Wait's error other than a non-zero exit
	// Set before done is closed.
	held bool // output still held heldOutputWait after the exit (SHELL-3 note)
}

// startProc starts cmd with its stdout and stderr copied to the two writers
// and returns once it runs; now stamps the exit. Nothing of cmd's own stdio
// fields may be set.
func startProc(cmd *exec.Cmd, stdout, stderr io.Writer, now func() time.Time) (*proc, error) {
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
	err = cmd.Start()
	// The child holds its own copies now (or never will).
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &proc{cmd: cmd, exited: make(chan struct{}), done: make(chan struct{})}
	var copies sync.WaitGroup
	copies.Go(func() { _, _ = io.Copy(stdout, outR) })
	copies.Go(func() { _, _ = io.Copy(stderr, errR) })
	drained := make(chan struct{})
	go func() { // ends with the copies, which end at EOF or when closed below
		copies.Wait()
		close(drained)
	}()
	go func() { // ends once the output is drained or given up, ≤ heldOutputWait after the exit
		err := cmd.Wait()
		p.exitAt = now()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			p.waitErr = err
		}
		close(p.exited)
		t := time.NewTimer(heldOutputWait)
		defer t.Stop()
		select {
		case <-drained:
		case <-t.C:
			p.held = true
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
