//go:build !murtest

package shell

import "time"

// closeGrace is SES-8's grace at session end; a release build reads no
// override.
func closeGrace() time.Duration { return stopKillAfter }
