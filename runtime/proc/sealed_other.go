//go:build !linux

package proc

import "os"

// Mark: there are no sealed sandboxes outside Linux.
type Mark struct{}

// Mark is zero.
func (sb *Sandbox) Mark() Mark { return Mark{} }

// LimitsHit is nil.
func (sb *Sandbox) LimitsHit(Mark, *os.ProcessState) []string { return nil }
