//go:build !linux

package proc

import (
	"errors"
	"os/exec"
)

// LandlockABI: there is no Landlock outside Linux.
func LandlockABI() (int, error) {
	return 0, errors.New("Landlock is a Linux kernel feature")
}

type jail struct {
	sealed *struct{}
	notes  []string
}

func newJail(*Policy) (*jail, error) { return nil, ErrNoLandlock }

func (j *jail) start(cmd *exec.Cmd) error { return cmd.Start() }

func (j *jail) close() {}
