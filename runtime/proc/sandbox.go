package proc

import (
	"errors"
	"os/exec"
)

// Containment classes (murmur's names): what a session's tool processes are
// held to. Advisory: nothing the kernel enforces; scoped: the trampoline's
// Landlock domain, seccomp filter, dropped capabilities and read-only
// protected paths.
const (
	Advisory = "advisory"
	Scoped   = "scoped"
)

// ErrNoLandlock is returned by NewSandbox for a policy on a kernel (or a
// platform) without Landlock.
var ErrNoLandlock = errors.New("the kernel offers no Landlock")

// Sandbox starts the subprocesses of one session's tools and checks (shell
// binaries, background commands, plan shell steps, native tools,
// done_check): each in its own process group with SysProcAttr's
// attributes, in the session's cgroup when there is one, and, under a
// Policy, through the trampoline, which confines the new process before it
// execs the command (jail_linux.go, package confine). A nil *Sandbox
// starts commands unconfined. Safe for concurrent use; Close it after the
// last command it started has exited.
type Sandbox struct {
	cgroup *Cgroup
	jail   *jail
}

// NewSandbox returns a Sandbox for policy (nil: unconfined) and cg (nil:
// no cgroup). A policy on a kernel without Landlock is ErrNoLandlock.
func NewSandbox(policy *Policy, cg *Cgroup) (*Sandbox, error) {
	sb := &Sandbox{cgroup: cg}
	if policy != nil {
		j, err := newJail(policy)
		if err != nil {
			return nil, err
		}
		sb.jail = j
	}
	return sb, nil
}

// Class is the containment the sandbox achieves: Sealed in a composed
// root, Scoped under Landlock, else Advisory.
func (sb *Sandbox) Class() string {
	switch {
	case sb != nil && sb.jail != nil && sb.jail.sealed != nil:
		return Sealed
	case sb != nil && sb.jail != nil:
		return Scoped
	}
	return Advisory
}

// Notes say what a sealed sandbox could not have (a cgroup the machine
// refused) and why; the session logs them.
func (sb *Sandbox) Notes() []string {
	if sb == nil || sb.jail == nil {
		return nil
	}
	return sb.jail.notes
}

// Spawn starts cmd (its SysProcAttr defaults to SysProcAttr()) and returns
// a channel that receives cmd.Wait's error once the process has exited and
// its output is copied. The caller reads it exactly once.
func (sb *Sandbox) Spawn(cmd *exec.Cmd) (<-chan error, error) {
	if err := sb.Start(cmd); err != nil {
		return nil, err
	}
	waited := make(chan error, 1) // buffered: the waiter never blocks
	go func() { waited <- cmd.Wait() }()
	return waited, nil
}

// Start starts cmd as Spawn does, in the session's cgroup and through the
// trampoline under a Policy, and leaves the reaping to the caller (a
// supervisor.Proc's Starter).
func (sb *Sandbox) Start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = SysProcAttr()
	}
	if sb == nil {
		return cmd.Start()
	}
	sb.cgroup.apply(cmd.SysProcAttr)
	if sb.jail != nil {
		return sb.jail.start(cmd)
	}
	return cmd.Start()
}

// Close releases the sandbox's Landlock ruleset; a later Spawn under a
// Policy fails. Idempotent; nil-safe.
func (sb *Sandbox) Close() {
	if sb != nil && sb.jail != nil {
		sb.jail.close()
	}
}
