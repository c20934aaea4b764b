package main

import (
	"context"
	"fmt"
	"time"

	"github.com/murmur-go/mur/capsule"
	"github.com/murmur-go/mur/runtime/murhome"
)

// formationMembersWait is how long `mur stop <frm_id>` waits for every member
// process to go (FCLI-6 step 4); 0 is capsule.StopFormation's 25 s. A
// variable only so tests can shorten it; E-RUN-024 always names 25 seconds.
var formationMembersWait time.Duration

// stopFormation runs `mur stop <frm_id> [--timeout <s>]` (formations.md
// FCLI-6) over capsule.StopFormation and returns the exit code.
func stopFormation(ctx context.Context, env *Env, id string, timeout time.Duration, jsonOut bool) int {
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return fail(env, "stop", err)
	}
	doc, err := capsule.StopFormation(ctx, capsule.FormationStop{Home: home, ID: id, Timeout: timeout, MembersWait: formationMembersWait})
	if doc == nil {
		return fail(env, "stop", err)
	}
	if !jsonOut {
		fmt.Fprint(env.Stdout, doc.Text())
	} else if werr := writeJSON(env.Stdout, doc); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return fail(env, "stop", err)
	}
	return 0
}
