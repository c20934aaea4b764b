//go:build !unix

package store

// flock is a no-op where flock(2) does not exist: concurrent installs there
// are not serialised across processes.
func flock(string) (func(), error) { return func() {}, nil }
