//go:build murtest

package harness

import (
	"strings"
	"time"
)

// LimitsFrom returns DefaultLimits with LimitsEnv's overrides (PTEST-4):
// a test build's hidden knob for the 600 s and 10 s constants.
func LimitsFrom(getenv func(string) string) Limits {
	l := DefaultLimits
	for _, kv := range strings.Split(getenv(LimitsEnv), ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			continue
		}
		switch k {
		case "inactivity":
			l.Inactivity = d
		case "grace":
			l.Grace = d
		}
	}
	return l
}
