//go:build !linux

package proc

import (
	"errors"
	"syscall"
)

// Cgroup: there are no cgroups outside Linux; a nil *Cgroup does nothing.
type Cgroup struct{}

// CgroupPrefix starts the name of every cgroup the runtime makes.
const CgroupPrefix = "mur-"

// NewCgroup: there are no cgroups outside Linux.
func NewCgroup(string) (*Cgroup, error) { return nil, errors.New("cgroups are a Linux kernel feature") }

// Path is "".
func (c *Cgroup) Path() string { return "" }

func (c *Cgroup) apply(*syscall.SysProcAttr) {}

// Procs is nil.
func (c *Cgroup) Procs() []int { return nil }

// Kill does nothing.
func (c *Cgroup) Kill() bool { return true }

// Remove does nothing.
func (c *Cgroup) Remove() {}

// CgroupProcs is nil.
func CgroupProcs(string) []int { return nil }

// KillCgroup does nothing.
func KillCgroup(string) bool { return true }
