//go:build !linux && !darwin

package peerfile

import (
	"errors"
	"io"
)

func store(string, string, io.Reader, int64, int64, string) (int64, string, error) {
	return 0, "", errors.New("fetch-peer-file is not supported on this system")
}
