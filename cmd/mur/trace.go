package main

import (
	"context"
	"fmt"
)

// cmdTrace is a placeholder until its owner lands it (see ARCHITECTURE.md).
var cmdTrace = &command{
	name:    "trace",
	summary: "show a session's trace",
	run: func(ctx context.Context, env *Env, args []string) int {
		fmt.Fprintln(env.Stderr, "error: mur trace is not built yet")
		return 1
	},
}
