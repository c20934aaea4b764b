package main

import (
	"context"
	"fmt"
)

// cmdList is a placeholder until its owner lands it (see ARCHITECTURE.md).
var cmdList = &command{
	name:    "list",
	summary: "list installed artifacts",
	run: func(ctx context.Context, env *Env, args []string) int {
		fmt.Fprintln(env.Stderr, "error: mur list is not built yet")
		return 1
	},
}
