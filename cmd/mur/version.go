package main

import (
	"context"
	"flag"
	"fmt"
)

var cmdVersion = &command{
	name:    "version",
	summary: "print this build's version",
	run:     runVersion,
}

const versionUsage = "Usage: mur version"

func runVersion(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	rest, code, done := parseFlags(env, "version", versionUsage, fs, args)
	if done {
		return code
	}
	if len(rest) > 0 {
		return usageError(env, "version", "unexpected argument '"+rest[0]+"'")
	}
	fmt.Fprintf(env.Stdout, "mur %s\n", version)
	return 0
}
