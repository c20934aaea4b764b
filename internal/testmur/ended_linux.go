package testmur

import (
	"os"
	"syscall"
)

// sysPidfdOpen is pidfd_open(2)'s number, the same on every architecture
// Linux numbers its newer calls alike on; pidfdNonblock is PIDFD_NONBLOCK.
const (
	sysPidfdOpen  = 434
	pidfdNonblock = syscall.O_NONBLOCK
)

// ended returns a channel closed once process p has exited (a zombie not yet
// reaped counts: ended does not reap it, its Wait stays its owner's), and a
// stop that ends the watch; stop must be called, and returns once the
// watching goroutine has. A pid that can no longer be opened has ended.
func ended(p *os.Process) (<-chan struct{}, func()) {
	done := make(chan struct{})
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(p.Pid), pidfdNonblock, 0)
	if errno != 0 {
		close(done) // ESRCH: reaped already
		return done, func() {}
	}
	f := os.NewFile(fd, "pidfd") // non-blocking: the runtime's poller waits on it
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		close(done)
		return done, func() {}
	}
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		// A pidfd is readable once its process has exited: the poller waits
		// for that, Alive confirms it, and Close (stop) ends the wait.
		err := rc.Read(func(uintptr) bool { return !Alive(p.Pid) })
		if err == nil {
			close(done)
		}
	}()
	return done, func() { f.Close(); <-watched }
}
