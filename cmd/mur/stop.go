package main

import (
	"context"
	"fmt"
)

// cmdStop is a placeholder until its owner lands it (see ARCHITECTURE.md).
var cmdStop = &command{
	name:    "stop",
	summary: "stop a running session or formation",
	run: func(ctx context.Context, env *Env, args []string) int {
		fmt.Fprintln(env.Stderr, "error: mur stop is not built yet")
		return 1
	},
}
