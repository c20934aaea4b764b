//go:build !murtest

package harness

// LimitsFrom returns DefaultLimits: a release build reads no override.
func LimitsFrom(getenv func(string) string) Limits { return DefaultLimits }
