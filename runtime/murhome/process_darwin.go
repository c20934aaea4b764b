package murhome

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// szomb is p_stat of a process that has exited and not been reaped
// (SZOMB in <sys/proc.h>).
const szomb = 5

// readStat returns the kernel's start time of pid (p_starttime as
// seconds.microseconds) and its state: 'Z' for a zombie, 'R' otherwise.
func readStat(pid int) (start string, state byte, err error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if errors.Is(err, unix.EIO) {
		// kern.proc.pid answers a pid no process holds with zero bytes,
		// which SysctlKinfoProc reports as EIO.
		return "", 0, fmt.Errorf("kern.proc.pid.%d: %w", pid, os.ErrNotExist)
	}
	if err != nil {
		return "", 0, fmt.Errorf("kern.proc.pid.%d: %w", pid, err)
	}
	t := kp.Proc.P_starttime
	state = 'R'
	if kp.Proc.P_stat == szomb {
		state = 'Z'
	}
	return fmt.Sprintf("%d.%06d", t.Sec, t.Usec), state, nil
}
