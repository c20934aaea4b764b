package main

import (
	"context"
	"fmt"
)

// cmdPs is a placeholder until its owner lands it (see ARCHITECTURE.md).
var cmdPs = &command{
	name:    "ps",
	summary: "list running sessions",
	run: func(ctx context.Context, env *Env, args []string) int {
		fmt.Fprintln(env.Stderr, "error: mur ps is not built yet")
		return 1
	},
}
