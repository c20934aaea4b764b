package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"

	"github.com/murmur-go/mur/conformance"
	"github.com/murmur-go/mur/runtime/diag"
)

// cmdConformance is `mur conformance <url> [--token [<kind>=]@<file>]…`
// (door.md GO-7, capsule.md CLI-15).
var cmdConformance = &command{
	name:    "conformance",
	summary: "check an A2A v1.0 door by URL",
	run:     runConformance,
}

const conformanceUsage = `Usage: mur conformance <url> [--token [door=|scoped=|member=]@<file>]... [--task-text <text>] [--slow-task-text <text>] [--check-timeout <duration>] [--json]

Runs the A2A v1.0 conformance suite against the door at <url> and prints one
line per check (PASS, FAIL, WARN or SKIP), then "<n> passed, <m> failed" and,
when a check warned, ", <k> warned". WARN is a door that does otherwise than
a standard's SHOULD. Checks of the murmur extensions skip when the card does
not declare them. Exits 1 when a check failed; warnings and skips do not.
--json prints the results as one JSON document instead (docs/json.md).

Each token names what it is, and turns on checks:
  door      a door token reaching every method (mur token's operator; door=
            may be left out): auth.missing, auth.invalid, and the JSON-RPC
            checks of a door whose card requires a token
  scoped    a door credential lacking some method's scope: auth.scoped
  member    a formation member token for this door (docs/door.md):
            formation.scope, formation.forged; with a door token also
            formation.own-tasks
Give a token as --token <kind>=@<file> (the file holds the token; @- reads it
from stdin) or in MURMUR_CONFORMANCE_TOKEN_DOOR, MURMUR_CONFORMANCE_TOKEN_SCOPED
or MURMUR_CONFORMANCE_TOKEN_MEMBER; --token wins over the variable. A token
written as --token <kind>=<token> still works, with warning W-SEC-033: the
command line is visible to every local user (ps). mur token prints a session's
tokens, "<name> <token>" a line, the operator's first:
  mur token @1 | awk '$1 == "operator" {print $2}' | mur conformance <url> --token door=@-

--task-text is the text of the tasks the suite starts; --slow-task-text, a
text the door's agent keeps working on until the task is canceled, lets the
checks that need a live task run on every door (without it they may skip).
Give both to test a door with a real model, and --check-timeout (default 60s)
when its answers take longer.`

func runConformance(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	var tokens tokenFlags
	fs.Var(&tokens, "token", "a token read from a `file`, written [door=|scoped=|member=]@<file> (@- reads stdin); once per kind (a bare token works too, visible to other local users)")
	taskText := fs.String("task-text", "", "the `text` of the tasks the suite starts (default: a request for one short sentence)")
	slowText := fs.String("slow-task-text", "", "a task `text` the door's agent keeps working on until the task is canceled")
	timeout := fs.Duration("check-timeout", conformance.DefaultCheckTimeout, "how long one check may take (a Go `duration`, e.g. 5m)")
	jsonOut := fs.Bool("json", false, "print the results as one JSON document (docs/json.md)")
	rest, code, done := parseInterspersed(env, "conformance", conformanceUsage, fs, args)
	if done {
		return code
	}
	switch {
	case len(rest) == 0:
		return usageError(env, "conformance", "missing the door URL")
	case len(rest) > 1:
		return usageError(env, "conformance", "unexpected argument '"+rest[1]+"'")
	case tokens.err != nil:
		return usageError(env, "conformance", tokens.err.Error())
	case *timeout <= 0:
		return usageError(env, "conformance", "--check-timeout must be positive")
	}
	u, err := url.Parse(rest[0])
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return usageError(env, "conformance", "'"+rest[0]+"' is not a door URL (want http://<host>:<port>)")
	}
	toks, err := tokens.resolve(env)
	if err != nil {
		return fail(env, "conformance", err)
	}
	for _, kind := range tokens.argv {
		fmt.Fprint(env.Stderr, diag.SecTokenInArgv(kind, tokenEnv(kind)).Render())
	}
	results := conformance.Run(ctx, conformance.Config{
		URL:          rest[0],
		Token:        toks["door"],
		ScopedToken:  toks["scoped"],
		MemberToken:  toks["member"],
		TaskText:     *taskText,
		SlowTaskText: *slowText,
		CheckTimeout: *timeout,
	})
	write := func() error { return conformance.Write(env.Stdout, results) }
	if *jsonOut {
		write = func() error {
			return writeJSON(env.Stdout, conformanceJSON{URL: rest[0], Results: results, Totals: conformance.Tally(results)})
		}
	}
	if err := write(); err != nil {
		return fail(env, "conformance", err)
	}
	if conformance.Tally(results).Failed > 0 {
		return 1 // README exit table: any check failed (warnings and skips do not count)
	}
	return 0
}

// conformanceJSON is `mur conformance --json` (docs/json.md): each check's
// outcome in suite order, then the counts by status.
type conformanceJSON struct {
	URL     string               `json:"url"`
	Results []conformance.Result `json:"results"`
	conformance.Totals
}
