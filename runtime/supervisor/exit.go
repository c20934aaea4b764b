// Package supervisor runs mur's child processes over os/exec: each in its
// own process group, killed with its parent (Linux: the parent-death
// signal), stopped with SIGTERM and a grace before SIGKILL reaches its whole
// group, and reaped once, its end decoded into an Exit. How a wait status
// reads — exit code, signal, the shell's 128+signal, the signal's name — is
// written here and nowhere else. The standard library only.
package supervisor

import (
	"fmt"
	"os"
	"syscall"
)

// Exit is how a process ended: Code is its exit code when it exited, -1
// when a signal ended it or it has not ended; Signal is the signal that
// ended it, 0 otherwise.
type Exit struct {
	Code   int
	Signal syscall.Signal
}

// Unfinished is the Exit of a process that has not been reaped.
var Unfinished = Exit{Code: -1}

// ExitOf decodes a reaped process's state; nil is Unfinished.
func ExitOf(ps *os.ProcessState) Exit {
	if ps == nil {
		return Unfinished
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal()}
	}
	return Exit{Code: ps.ExitCode()}
}

// Finished reports whether the process ended, by exit or by signal.
func (e Exit) Finished() bool { return e.Code >= 0 || e.Signal != 0 }

// ShellCode is the end as a shell reports it: the exit code, or 128 + the
// signal; -1 when the process has not ended.
func (e Exit) ShellCode() int {
	if e.Signal != 0 {
		return 128 + int(e.Signal)
	}
	return e.Code
}

// String is "status N" for an exit and "signal SIGTERM" for a signal.
func (e Exit) String() string {
	switch {
	case e.Signal != 0:
		return "signal " + SignalName(e.Signal)
	case e.Code < 0:
		return "not ended"
	}
	return fmt.Sprintf("status %d", e.Code)
}

// SignalName is a signal's SIG name, e.g. SIGTERM; SIG<n> for one without
// a name here.
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return fmt.Sprintf("SIG%d", int(s))
}
