package main

import (
	"context"
	"fmt"
)

// cmdToken is a placeholder until its owner lands it (see ARCHITECTURE.md).
var cmdToken = &command{
	name:    "token",
	summary: "print a running session's door tokens",
	run: func(ctx context.Context, env *Env, args []string) int {
		fmt.Fprintln(env.Stderr, "error: mur token is not built yet")
		return 1
	},
}
