package testmur

import (
	"os"
	"strconv"
	"testing"
)

// LandlockEnv names the Landlock ABI the machine running the tests must
// offer (.ci/run sets it to its kernel's): a test that needs an ABI at or
// below it fails where it would otherwise skip, as MURMUR_HARNESS_E2E=1 does
// for the harness CLIs. Unset or 0, a kernel without the feature skips.
const LandlockEnv = "MURMUR_REQUIRE_LANDLOCK_ABI"

// NeedLandlock skips t unless the kernel offers Landlock ABI need or later,
// as have (proc.LandlockABI) reads it, or fails t when LandlockEnv requires
// that ABI. A LandlockEnv that is no number fails t: a requirement mistyped
// in CI must not turn back into a skip.
func NeedLandlock(t testing.TB, need int, have func() (int, error)) {
	t.Helper()
	abi, err := have()
	if err == nil && abi >= need {
		return
	}
	required := 0
	if s := os.Getenv(LandlockEnv); s != "" {
		n, perr := strconv.Atoi(s)
		if perr != nil {
			t.Fatalf("%s=%q is no Landlock ABI number", LandlockEnv, s)
		}
		required = n
	}
	if required >= need {
		t.Fatalf("the kernel offers Landlock ABI %d (%v), this test needs %d, and %s=%d requires it", abi, err, need, LandlockEnv, required)
	}
	t.Skipf("the kernel offers Landlock ABI %d (%v), this test needs %d; set %s=%d to make this a failure", abi, err, need, LandlockEnv, need)
}
