package main

import (
	"context"
	"fmt"
)

// cmdNew is a placeholder until its owner lands it (see ARCHITECTURE.md).
var cmdNew = &command{
	name:    "new",
	summary: "scaffold a capsule, or a formation with --roster",
	run: func(ctx context.Context, env *Env, args []string) int {
		fmt.Fprintln(env.Stderr, "error: mur new is not built yet")
		return 1
	},
}
