package formation

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// descriptor parses an fd variable's value: a decimal number above 2. The
// returned reason completes E-RUN-046's message.
func descriptor(v string) (int, string) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil || n < 0:
		return 0, fmt.Sprintf("'%s' is not a descriptor number", v)
	case n <= 2:
		return 0, fmt.Sprintf("descriptor %d is a standard stream", n)
	}
	return n, ""
}

// fdKind names the file type of mode for E-RUN-046's reasons.
func fdKind(mode uint32) string {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFIFO:
		return "a pipe"
	case syscall.S_IFREG:
		return "a regular file"
	case syscall.S_IFDIR:
		return "a directory"
	case syscall.S_IFSOCK:
		return "a socket"
	case syscall.S_IFCHR:
		return "a character device"
	case syscall.S_IFBLK:
		return "a block device"
	case syscall.S_IFLNK:
		return "a symlink"
	}
	return "of an unknown type"
}

// checkFD reports why fd is unusable as a channel (pipe or regular file,
// CHAN-4) or a lifeline (pipe read end only, LIFE-8), or "".
//
// A descriptor this process did not inherit counts as not open: every
// descriptor handed over across exec is without FD_CLOEXEC, and every one the
// Go runtime opens for itself (cgroup files, the poller) has it — so an
// unpassed 3 or 4 is never mistaken for a channel or lifeline.
func checkFD(fd int, lifeline bool) string {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		if err == syscall.EBADF {
			return fmt.Sprintf("descriptor %d is not open", fd)
		}
		return fmt.Sprintf("descriptor %d cannot be examined: %v", fd, err)
	}
	if fdfl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); errno == 0 && fdfl&syscall.FD_CLOEXEC != 0 {
		return fmt.Sprintf("descriptor %d is not open", fd)
	}
	typ := uint32(st.Mode) & syscall.S_IFMT
	if typ != syscall.S_IFIFO && (lifeline || typ != syscall.S_IFREG) {
		return fmt.Sprintf("descriptor %d is %s", fd, fdKind(uint32(st.Mode))) // uint16 on darwin
	}
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if errno != 0 {
		return fmt.Sprintf("descriptor %d cannot be examined: %v", fd, errno)
	}
	if fl&syscall.O_ACCMODE != syscall.O_RDONLY {
		return fmt.Sprintf("descriptor %d is open for writing", fd)
	}
	return ""
}

// ReadEnd parses an fd variable's value (a decimal number above 2) and
// checks that it names a pipe read end this process inherited, as a
// lifeline must be (LIFE-8; tools.md DLG-6's spawner lifeline too). It
// returns the descriptor, or why it cannot be used.
func ReadEnd(v string) (fd int, why string) {
	fd, why = descriptor(v)
	if why == "" {
		why = checkFD(fd, true)
	}
	return fd, why
}

// OpenReadEnd wraps fd, which ReadEnd accepted, as an *os.File on Go's
// poller (reads take deadlines, Close unblocks them), close-on-exec so that
// the session's own subprocesses never inherit it.
func OpenReadEnd(fd int, name string) *os.File { return openFD(fd, name) }
