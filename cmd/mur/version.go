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

const versionUsage = "Usage: mur version [--json]\n\nPrints this build's version; --json prints {\"version\": …} (docs/json.md)."

func runVersion(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	jsonOut := fs.Bool("json", false, "print one JSON document (docs/json.md)")
	rest, code, done := parseFlags(env, "version", versionUsage, fs, args)
	if done {
		return code
	}
	if len(rest) > 0 {
		return usageError(env, "version", "unexpected argument '"+rest[0]+"'")
	}
	if *jsonOut {
		if err := writeJSON(env.Stdout, versionJSON{Version: version}); err != nil {
			return fail(env, "version", err)
		}
		return 0
	}
	fmt.Fprintf(env.Stdout, "mur %s\n", version)
	return 0
}

// versionJSON is `mur version --json` (docs/json.md).
type versionJSON struct {
	Version string `json:"version"`
}
