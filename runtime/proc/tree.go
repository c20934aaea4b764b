package proc

import "time"

// Grace periods of StopDescendants (SES-8's, BG-1's): SIGTERM, then SIGKILL
// after StopGrace; then up to StopKillWait for the killed to go.
const (
	StopGrace    = 2 * time.Second
	StopKillWait = 5 * time.Second
	stopPoll     = 10 * time.Millisecond // how often /proc is looked at again while waiting
)

// Process is one live process: its pid, its process group, its parent and
// its command name.
type Process struct {
	PID, PGID, PPID int
	Comm            string
}
