//go:build !linux

package proc

import "errors"

// Reaper: there is no child subreaper outside Linux.
type Reaper struct{}

// Subreap: there is no child subreaper outside Linux; an orphan goes to init
// and only its own process group's stop reaches it.
func Subreap() (*Reaper, error) {
	return nil, errors.New("a child subreaper is a Linux feature")
}

// Close does nothing.
func (r *Reaper) Close() {}
