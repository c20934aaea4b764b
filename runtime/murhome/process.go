package murhome

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// StartTime returns the start time of process pid as the host records it, a
// string compared for equality only (capsule.md SES-6): on Linux field 22 of
// /proc/<pid>/stat (clock ticks since boot), on macOS the kernel's
// p_starttime (seconds.microseconds). It fails when the process does not
// exist or its start time cannot be read, and always on other systems.
func StartTime(pid int) (string, error) {
	start, _, err := readStat(pid)
	return start, err
}

// Liveness is what a record's pid and start time say about its process.
type Liveness int

// The liveness states.
const (
	// Alive: the pid is held by a process that started when the record says.
	Alive Liveness = iota
	// Gone: no process holds the pid (a zombie counts as gone: it has exited).
	Gone
	// Reused: the pid is held by a process that started at another time.
	Reused
	// Unconfirmed: a process holds the pid, but its start time could not be
	// read or the record holds none; it may be the recorded one.
	Unconfirmed
)

func (l Liveness) String() string {
	switch l {
	case Alive:
		return "alive"
	case Gone:
		return "gone"
	case Reused:
		return "reused"
	default:
		return "unconfirmed"
	}
}

// Check tells whether pid is still the process that started at start
// (capsule.md CLI-12: pid exists and start time matches).
func Check(pid int, start string) Liveness {
	if pid <= 0 {
		return Gone
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return Gone
	}
	got, state, err := readStat(pid)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Gone
	case err != nil:
		return Unconfirmed
	case state == 'Z' || state == 'X':
		return Gone
	case start == "":
		return Unconfirmed
	case got != start:
		return Reused
	}
	return Alive
}

// Check reports the liveness of the record's own process.
func (r *Running) Check() Liveness { return Check(r.PID, r.ProcessStart) }

// Errors of SignalVerified; the signal was not sent.
var (
	ErrGone            = errors.New("no process holds the pid")
	ErrReused          = errors.New("the pid is held by a process that started at another time")
	ErrStartUnreadable = errors.New("the pid's start time could not be read")
)

// SignalVerified sends sig to pid only if pid is still the process that
// started at start: it takes a pidfd first, then compares the start time, then
// signals through the pidfd, so a pid reused in between is never signalled
// (capsule.md CLI-13: an unconfirmed pid is never signalled). It returns nil,
// ErrGone, ErrReused, ErrStartUnreadable, or the kernel's refusal (e.g.
// EPERM) wrapped.
func SignalVerified(pid int, start string, sig syscall.Signal) error {
	if pid <= 0 {
		return ErrGone
	}
	p, err := os.FindProcess(pid) // holds a pidfd on Linux
	if err != nil {
		return ErrGone
	}
	defer p.Release()
	switch Check(pid, start) {
	case Gone:
		return ErrGone
	case Reused:
		return ErrReused
	case Unconfirmed:
		return ErrStartUnreadable
	}
	if err := p.Signal(sig); err != nil {
		if errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH) {
			return ErrGone
		}
		return fmt.Errorf("signal pid %d: %w", pid, err)
	}
	return nil
}
