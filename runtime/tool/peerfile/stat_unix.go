//go:build linux || darwin

package peerfile

import (
	"time"

	"golang.org/x/sys/unix"
)

func idOf(st *unix.Stat_t) fileID {
	return fileID{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, // Dev is int32 on darwin
		mtime: time.Unix(st.Mtim.Unix()), ctime: time.Unix(st.Ctim.Unix())}
}
