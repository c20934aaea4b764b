//go:build !linux

package proc

import "time"

// Descendants: without /proc nothing is listed; each command's process
// group is still stopped by its owner.
func Descendants() []Process { return nil }

// StopDescendants: nothing is found outside Linux (no /proc, no subreaper);
// every orderly end still kills each command's process group.
func StopDescendants(time.Duration, *Cgroup) []Process { return nil }

// FindByEnv: nothing is found outside Linux.
func FindByEnv(string) []Process { return nil }
