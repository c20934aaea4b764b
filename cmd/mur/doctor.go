package main

import (
	"context"
	"fmt"
)

// cmdDoctor is a placeholder until its owner lands it (see ARCHITECTURE.md).
var cmdDoctor = &command{
	name:    "doctor",
	summary: "check the project (murmur.yaml) or formation (roster.yaml) here",
	run: func(ctx context.Context, env *Env, args []string) int {
		fmt.Fprintln(env.Stderr, "error: mur doctor is not built yet")
		return 1
	},
}
