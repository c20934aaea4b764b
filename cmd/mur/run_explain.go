package main

import (
	"encoding/json"
	"fmt"

	"github.com/murmur-go/mur/runtime/session"
)

// explainScope is mur run --explain-scope: MAN-4's checks, then what a tool
// process of the session could reach (session.Scope, --json for its JSON),
// and the exit, with nothing made. A floor the machine cannot meet prints
// the scope, then E-CAP-003, and exits 1.
func explainScope(env *Env, f *runFlags, opts session.Options) int {
	l, err := session.Prepare(opts)
	if err != nil {
		return fail(env, "run", manifestMissing(opts.ManifestPath, err))
	}
	defer l.Close()
	sc, refused := l.ExplainScope()
	if sc == nil {
		return fail(env, "run", refused)
	}
	if f.jsonOut {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false) // <records> as it is
		if err := enc.Encode(sc); err != nil {
			return fail(env, "run", err)
		}
	} else {
		fmt.Fprint(env.Stdout, sc.Text())
	}
	if refused != nil {
		return fail(env, "run", refused)
	}
	return 0
}
