package main

import (
	"context"
	"flag"
	"net/url"

	"github.com/murmur-go/mur/conformance"
)

// cmdConformance is `mur conformance <url> [--token <token>]` (door.md GO-7,
// capsule.md CLI-15).
var cmdConformance = &command{
	name:    "conformance",
	summary: "check an A2A v1.0 door by URL",
	run:     runConformance,
}

const conformanceUsage = `Usage: mur conformance <url> [--token <token>]

Runs the A2A v1.0 conformance suite against the door at <url> and prints one
line per check (PASS, FAIL or SKIP), then "<N> passed, <M> failed". Checks of
the murmur extensions skip when the card does not declare them; auth checks
skip without --token. Exits 1 when a check failed.`

func runConformance(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	token := fs.String("token", "", "bearer `token` for the door's JSON-RPC methods (turns on the auth checks)")
	rest, code, done := parseFlags(env, "conformance", conformanceUsage, fs, args)
	if done {
		return code
	}
	if len(rest) > 1 { // flags may follow the URL
		more, code, done := parseFlags(env, "conformance", conformanceUsage, fs, rest[1:])
		if done {
			return code
		}
		rest = append(rest[:1], more...)
	}
	switch {
	case len(rest) == 0:
		return usageError(env, "conformance", "missing the door URL")
	case len(rest) > 1:
		return usageError(env, "conformance", "unexpected argument '"+rest[1]+"'")
	}
	u, err := url.Parse(rest[0])
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return usageError(env, "conformance", "'"+rest[0]+"' is not a door URL (want http://<host>:<port>)")
	}
	results := conformance.Run(ctx, conformance.Config{URL: rest[0], Token: *token})
	if err := conformance.Write(env.Stdout, results); err != nil {
		return fail(env, "conformance", err)
	}
	if _, failed := conformance.Count(results); failed > 0 {
		return 1 // README exit table: any check failed (skips do not count)
	}
	return 0
}
