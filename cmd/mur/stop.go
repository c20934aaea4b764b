package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/capsule"
	"github.com/murmur-go/mur/runtime/murhome"
)

// cmdStop is `mur stop <session>` (capsule.md CLI-13); `mur stop <frm_id>` is
// formations.md FCLI-6, in stop_formation.go.
var cmdStop = &command{
	name:    "stop",
	summary: "stop a running session or formation",
	run:     runStop,
}

const stopUsage = `Usage: mur stop <session> [--timeout <seconds>] [--json]
       mur stop <frm_id> [--timeout <seconds>] [--json]

Stops a running session: asks its door to cancel every live task
(session/stop, with the operator token), waits up to 5 s for each canceled
task to end in the trace, sends SIGTERM, and SIGKILL if the process is still
running --timeout seconds later. The pid and its start time are checked before
every signal. <session> is a full session id, the last 4 or more characters of
one, or @N (the N-th newest running session). A frm_ id stops a formation.
--json prints what was stopped as one JSON document (docs/json.md).`

// defaultStopWait is --timeout's default, in seconds.
const defaultStopWait = 10

func runStop(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("stop", flag.ContinueOnError)
	timeout := fs.Int("timeout", defaultStopWait, "`seconds` between SIGTERM and SIGKILL; 0 sends SIGKILL at once")
	jsonOut := fs.Bool("json", false, "print one JSON document (docs/json.md)")
	pos, code, done := parseInterspersed(env, "stop", stopUsage, fs, args)
	if done {
		return code
	}
	switch {
	case len(pos) == 0:
		return usageError(env, "stop", "missing argument: the session or formation to stop")
	case len(pos) > 1:
		return usageError(env, "stop", fmt.Sprintf("unexpected argument '%s'", pos[1]))
	case *timeout < 0:
		return usageError(env, "stop", fmt.Sprintf("--timeout must be 0 or more seconds, not %d", *timeout))
	}
	wait := time.Duration(*timeout) * time.Second
	if strings.HasPrefix(pos[0], a2a.PrefixFormation) {
		return stopFormation(ctx, env, pos[0], wait, *jsonOut)
	}
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return fail(env, "stop", err)
	}
	rec, err := resolveRunning(home, pos[0])
	if err != nil {
		return fail(env, "stop", err)
	}
	res, err := capsule.Stop(ctx, home, rec, wait)
	if err != nil {
		return fail(env, "stop", err)
	}
	if *jsonOut {
		if err := writeJSON(env.Stdout, res); err != nil {
			return fail(env, "stop", err)
		}
		return 0
	}
	fmt.Fprint(env.Stdout, res.Text())
	return 0
}
