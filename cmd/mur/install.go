package main

import (
	"context"
	"fmt"
)

// cmdInstall is a placeholder until its owner lands it (see ARCHITECTURE.md).
var cmdInstall = &command{
	name:    "install",
	summary: "install an artifact into the project or global store",
	run: func(ctx context.Context, env *Env, args []string) int {
		fmt.Fprintln(env.Stderr, "error: mur install is not built yet")
		return 1
	},
}
