package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
)

// cmdToken is `mur token` (capsule.md CLI-11, door.md AUTH-5).
var cmdToken = &command{
	name:    "token",
	summary: "print a running session's door tokens",
	run:     runToken,
}

const tokenUsage = `Usage: mur token [<session>] [--json]

Prints a running session's door tokens, read from its running record: one
"<name> <token>" line each, operator first, then the declared credentials in
manifest order. A public door has none, and nothing is printed. <session> is a
full session id, the last 4 or more characters of one, or @N (the N-th newest
running session); the default is @1.`

func runToken(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object, keys in the same order")
	pos, code, done := parseInterspersed(env, "token", tokenUsage, fs, args)
	if done {
		return code
	}
	if len(pos) > 1 {
		return usageError(env, "token", fmt.Sprintf("unexpected argument '%s'", pos[1]))
	}
	var arg string
	if len(pos) == 1 {
		arg = pos[0]
	}
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return fail(env, "token", err)
	}
	rec, err := resolveRunning(home, arg)
	if err != nil {
		return fail(env, "token", err)
	}
	if len(rec.Tokens) == 0 {
		return 0 // a public door has no tokens (CLI-11)
	}
	if *asJSON {
		b, err := json.Marshal(rec.Tokens)
		if err != nil {
			return fail(env, "token", err)
		}
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return 0
	}
	for _, t := range rec.Tokens {
		fmt.Fprintf(env.Stdout, "%s %s\n", t.Name, t.Value)
	}
	return 0
}

// resolveRunning names one running record (capsule.md CLI-11; `mur stop`
// takes the same forms, CLI-13): a full id, an id suffix of at least 4
// characters (case-insensitive), or @N among the records newest first; ""
// is @1. Errors are E-RUN-028 (records unreadable) or E-RUN-022.
func resolveRunning(home, arg string) (*murhome.Running, error) {
	recs, err := murhome.ListRunning(home)
	if err != nil {
		return nil, err
	}
	if arg == "" {
		arg = "@1"
	}
	if !isSessionAddress(arg) {
		return nil, diag.RunNotSessionAddress(arg)
	}
	if len(recs) == 0 {
		return nil, diag.RunNoneRunning()
	}
	if n, ok := strings.CutPrefix(arg, "@"); ok {
		i, _ := strconv.Atoi(n)
		if i > len(recs) {
			return nil, diag.RunNoSessionMatch(arg)
		}
		return recs[i-1], nil
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.SessionID
	}
	matches := murhome.MatchSuffix(ids, arg)
	switch len(matches) {
	case 0:
		return nil, diag.RunNoSessionMatch(arg)
	case 1:
		for _, r := range recs {
			if r.SessionID == matches[0] {
				return r, nil
			}
		}
	}
	return nil, diag.RunAmbiguousSession(arg, matches)
}

// isSessionAddress reports whether arg has a session address's form: @N with
// N ≥ 1, or at least 4 characters of an id ([A-Za-z0-9_]).
func isSessionAddress(arg string) bool {
	if n, ok := strings.CutPrefix(arg, "@"); ok {
		i, err := strconv.Atoi(n)
		return err == nil && i >= 1 && n == strconv.Itoa(i)
	}
	if len(arg) < murhome.MinSuffix {
		return false
	}
	for _, c := range arg {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
