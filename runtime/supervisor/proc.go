package supervisor

import (
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Options shape how a child is supervised.
type Options struct {
	// Grace is how long the child has after SIGTERM before SIGKILL reaches
	// its whole group; it is also the command's WaitDelay, so a grandchild
	// holding the child's output cannot hold its reaping longer.
	Grace time.Duration
	// DieWithParent has the kernel SIGKILL the child when mur dies (Linux's
	// parent-death signal): for a child with no lifeline of its own to notice
	// mur's end. A capsule mur starts winds down from its lifeline instead.
	DieWithParent bool
	// InParentGroup leaves the child in mur's own process group (a child that
	// shares mur's terminal and signals); SIGKILL then reaches the child
	// alone.
	InParentGroup bool
	// Starter starts the prepared command in place of cmd.Start (a sandbox
	// that confines it first); it must not wait for it. Nil: cmd.Start.
	Starter func(*exec.Cmd) error
}

// Proc is a started child: its owner calls Stop or Kill as it decides, and
// Done closes once the child is reaped. Its methods are safe for concurrent
// use.
type Proc struct {
	cmd   *exec.Cmd
	grace time.Duration
	group bool // the child leads a process group of its own
	done  chan struct{}

	mu       sync.Mutex
	exit     Exit
	reaped   bool
	termSent bool
	killer   *time.Timer
}

// Start starts cmd in its own process group and reaps it on a goroutine of
// its own, which ends once the child is reaped. A cmd built with
// exec.CommandContext is stopped as Stop does when its context ends
// (Cmd.Cancel). cmd's SysProcAttr, when set, is kept, with Setpgid (and
// Pdeathsig under DieWithParent) added.
func Start(cmd *exec.Cmd, o Options) (*Proc, error) {
	p := &Proc{cmd: cmd, grace: o.Grace, group: !o.InParentGroup, done: make(chan struct{}), exit: Unfinished}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = p.group
	if o.DieWithParent {
		setParentDeath(cmd.SysProcAttr)
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = o.Grace
	}
	if cmd.Cancel != nil { // exec.CommandContext's: it kills the child alone
		cmd.Cancel = func() error { p.Stop(); return nil }
	}
	start := o.Starter
	if start == nil {
		start = (*exec.Cmd).Start
	}
	if err := start(cmd); err != nil {
		return nil, err
	}
	go p.reap()
	return p, nil
}

func (p *Proc) reap() {
	_ = p.cmd.Wait()
	p.mu.Lock()
	p.exit, p.reaped = ExitOf(p.cmd.ProcessState), true
	if p.killer != nil {
		p.killer.Stop()
	}
	p.mu.Unlock()
	close(p.done)
}

// Pid is the child's process id, which is also its process group's unless
// InParentGroup.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Done closes once the child is reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exit is how the child ended; Unfinished before Done.
func (p *Proc) Exit() Exit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// Stop asks the child to end: SIGTERM to it once (it winds down what it
// runs), then SIGKILL to its whole group Grace later unless it is reaped
// first. Stop after the reaping does nothing.
func (p *Proc) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return
	}
	if !p.termSent {
		p.termSent = true
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	p.armKillLocked(p.grace)
}

// KillAfter SIGKILLs the child's group d from now unless it is reaped first
// or a kill is armed already.
func (p *Proc) KillAfter(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		p.armKillLocked(d)
	}
}

func (p *Proc) armKillLocked(d time.Duration) {
	if p.killer != nil {
		return
	}
	p.killer = time.AfterFunc(d, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.reaped {
			p.killLocked()
		}
	})
}

// Kill SIGKILLs the child's whole group now (the child alone under
// InParentGroup), unless it is reaped.
func (p *Proc) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		p.killLocked()
	}
}

func (p *Proc) killLocked() {
	if p.group {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		return
	}
	_ = p.cmd.Process.Kill()
}
