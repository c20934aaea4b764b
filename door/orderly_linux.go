package door

import (
	"net"

	"golang.org/x/sys/unix"
)

// unread reports whether the kernel holds bytes of c not yet read.
func unread(c *net.TCPConn) bool {
	rc, err := c.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	_ = rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ) })
	return n > 0
}
