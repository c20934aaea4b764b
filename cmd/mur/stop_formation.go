package main

import (
	"context"
	"fmt"
	"time"
)

// stopFormation runs `mur stop <frm_id> [--timeout <s>]` (formations.md
// FCLI-6) and returns the exit code. Placeholder until the launcher lands.
func stopFormation(ctx context.Context, env *Env, id string, timeout time.Duration) int {
	fmt.Fprintln(env.Stderr, "error: mur stop <formation> is not built yet")
	return 1
}
