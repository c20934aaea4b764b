package harness

import "time"

// Limits are the fixed bounds of a run (process.md PROC-16, PROC-17): not
// manifest keys.
type Limits struct {
	// Inactivity is how long a run may go without activity (HEV-10, BRG-8)
	// before it is interrupted (E-RUN-035): 600 s.
	Inactivity time.Duration
	// Grace is how long an interrupted harness has to exit on SIGTERM
	// before its group gets SIGKILL: 10 s.
	Grace time.Duration
}

// DefaultLimits are the limits of every release build.
var DefaultLimits = Limits{Inactivity: 600 * time.Second, Grace: 10 * time.Second}

// ProbeTimeout bounds the version probe (PROC-10).
const ProbeTimeout = 10 * time.Second

// LimitsEnv names the test builds' override of the limits (PTEST-4):
// MURMUR_TEST_HARNESS_LIMITS=inactivity=<d>,grace=<d>, read only by a mur
// built with the murtest tag (internal/testmur builds so).
const LimitsEnv = "MURMUR_TEST_HARNESS_LIMITS"
