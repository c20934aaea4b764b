//go:build unix

package trace

import (
	"io/fs"
	"syscall"
)

// linkCount is a file's number of hard links, from its stat.
func linkCount(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}
