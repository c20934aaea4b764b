//go:build !linux && !darwin

package murhome

import (
	"errors"
	"fmt"
)

// readStat has no source of process start times on this system: every
// record's start is "" and every live pid is Unconfirmed, so mur stop never
// signals a pid it cannot verify (capsule.md CLI-13).
func readStat(pid int) (string, byte, error) {
	return "", 0, fmt.Errorf("start time of pid %d: %w", pid, errors.ErrUnsupported)
}
