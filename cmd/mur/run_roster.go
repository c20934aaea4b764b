package main

import (
	"context"
	"fmt"
)

// runRoster runs `mur run --roster …` (formations.md LAUNCH-*); args are every
// argument after "run". Placeholder until the launcher lands (ARCHITECTURE.md).
func runRoster(ctx context.Context, env *Env, args []string) int {
	fmt.Fprintln(env.Stderr, "error: mur run --roster is not built yet")
	return 1
}
