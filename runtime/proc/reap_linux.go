package proc

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Reaper makes this process a child subreaper (PR_SET_CHILD_SUBREAPER): a
// descendant whose parent dies — a setsid'd or double-forked daemon a tool
// left — becomes this process's child instead of init's, so
// StopDescendants still finds it and its exit is reaped here.
//
// Reaping must not steal an exit status os/exec is waiting for. On Linux Go
// holds a pidfd for every process it started until its Wait returns, so an
// exited child is reaped here only when no pidfd of this process names it:
// it was adopted, not started. Where Go does not use pidfds (an old kernel)
// nothing is reaped eagerly; adopted zombies then wait for this process's
// end. Close stops the reaping goroutine.
type Reaper struct {
	sigs chan os.Signal
	done chan struct{}
}

// Subreap makes this process a subreaper and starts reaping adopted orphans.
func Subreap() (*Reaper, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	r := &Reaper{sigs: make(chan os.Signal, 1), done: make(chan struct{})} // 1: SIGCHLDs coalesce, one pass reaps them all
	eager := pidfdsUsed()
	signal.Notify(r.sigs, syscall.SIGCHLD)
	go func() { // owned by r: ends at Close
		defer close(r.done)
		for range r.sigs {
			if eager {
				reapAdopted()
			}
		}
	}()
	return r, nil
}

// Close stops reaping. Idempotent is not needed: call it once.
func (r *Reaper) Close() {
	if r == nil {
		return
	}
	signal.Stop(r.sigs)
	close(r.sigs)
	<-r.done
}

// reapAdopted reaps every exited child no pidfd of this process names.
func reapAdopted() {
	owned := pidfdPIDs()
	for {
		var info unix.Siginfo
		// WNOWAIT: look without reaping; a child os/exec waits for stays
		// for its Wait.
		if err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil {
			return
		}
		pid := siginfoPID(&info)
		if pid == 0 {
			return
		}
		if owned[pid] {
			owned = pidfdPIDs() // it may have been reaped and closed meanwhile
			if owned[pid] {
				reapZombies(owned) // the others behind it, found by /proc
				return
			}
			continue
		}
		var ws unix.WaitStatus
		_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	}
}

// reapZombies reaps this process's zombie children that owned does not name.
func reapZombies(owned map[int]bool) {
	self := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || owned[pid] {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[0] == "Z" && f[1] == strconv.Itoa(self) {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
}

// pidfdPIDs is the set of pids this process holds a pidfd for.
func pidfdPIDs() map[int]bool {
	out := map[int]bool{}
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); l != "anon_inode:[pidfd]" {
			continue
		}
		b, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && pid > 0 {
					out[pid] = true
				}
			}
		}
	}
	return out
}

// pidfdsUsed reports whether os/exec holds a pidfd for what it starts: the
// checks os makes before it uses them (pidfd_open, waitid(P_PIDFD),
// pidfd_send_signal).
func pidfdsUsed() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED|unix.WNOHANG, nil); err != syscall.ECHILD {
		return false
	}
	return unix.PidfdSendSignal(fd, 0, nil, 0) == nil
}

// siginfoPID is a SIGCHLD siginfo's si_pid: after si_signo, si_errno and
// si_code, at the union's start (8-aligned on 64-bit).
func siginfoPID(info *unix.Siginfo) int {
	b := (*[unsafe.Sizeof(unix.Siginfo{})]byte)(unsafe.Pointer(info))
	off := 12
	if unsafe.Sizeof(uintptr(0)) == 8 {
		off = 16
	}
	return int(int32(binary.NativeEndian.Uint32(b[off:])))
}
