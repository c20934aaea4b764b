//go:build !murtest

package session

// startFault is nil: a release build reads no fault knob.
func startFault(func(string) string, string) error { return nil }

// faultAt is nil: a release build reads no fault knob.
func faultAt(func(string) string, string) error { return nil }
