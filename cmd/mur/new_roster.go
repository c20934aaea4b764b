package main

import (
	"context"
	"fmt"
)

// newRoster runs `mur new --roster <NAME>` (formations.md FCLI-9); args are the
// arguments after "new". Placeholder until the launcher lands.
func newRoster(ctx context.Context, env *Env, args []string) int {
	fmt.Fprintln(env.Stderr, "error: mur new --roster is not built yet")
	return 1
}
