package main

import (
	"context"
	"fmt"
)

// cmdRun is a placeholder until its owner lands it (see ARCHITECTURE.md).
var cmdRun = &command{
	name:    "run",
	summary: "run a capsule (--capsule, --manifest) or a formation (--roster)",
	run: func(ctx context.Context, env *Env, args []string) int {
		fmt.Fprintln(env.Stderr, "error: mur run is not built yet")
		return 1
	},
}
