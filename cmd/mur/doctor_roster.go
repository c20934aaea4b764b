package main

import (
	"context"
	"fmt"
)

// doctorFormationDir runs `mur doctor` in a formation directory (formations.md
// DOC-1, DOC-2): dir holds roster.yaml and no murmur.yaml. It prints the whole
// report and returns the exit code. Placeholder until the launcher lands.
func doctorFormationDir(ctx context.Context, env *Env, dir string) int {
	fmt.Fprintln(env.Stderr, "error: mur doctor on a roster is not built yet")
	return 1
}

// doctorRosterBlock prints the Roster block for a roster.yaml beside the
// project's murmur.yaml (DOC-1) and returns what the tally counts: errors
// (0 or 1), warnings, and the Fix: hints in order. Placeholder.
func doctorRosterBlock(ctx context.Context, env *Env, dir string) (errs, warns int, errFixes, warnFixes []string) {
	return 0, 0, nil, nil
}
