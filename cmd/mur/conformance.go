package main

import (
	"context"
	"fmt"
)

// cmdConformance is a placeholder until its owner lands it (see ARCHITECTURE.md).
var cmdConformance = &command{
	name:    "conformance",
	summary: "check an A2A v1.0 door by URL",
	run: func(ctx context.Context, env *Env, args []string) int {
		fmt.Fprintln(env.Stderr, "error: mur conformance is not built yet")
		return 1
	},
}
