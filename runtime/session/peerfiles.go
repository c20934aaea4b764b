package session

import (
	"github.com/murmur-go/mur/a2a"
)

// generation counts the tasks of this runtime process that reached a
// terminal state (x-murmur-generation).
func (s *Session) generation() uint64 {
	var n uint64
	for st, c := range s.reg.Counts() {
		switch st {
		case a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected:
			n += uint64(c)
		}
	}
	return n
}
