package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/trace"
)

// formationMembersWait is how long `mur stop <frm>` waits for every member
// process to go (FCLI-6 step 4): the launcher's own teardown grace. A
// variable only so tests can shorten it; E-RUN-024 always names 25 seconds.
var formationMembersWait = 25 * time.Second

// stopFormation runs `mur stop <frm_id> [--timeout <s>]` (formations.md
// FCLI-6) and returns the exit code: (1) collect the running records of the
// formation, removing stale ones; (2) SIGTERM its one recorded launcher,
// SIGKILL after timeout; (3) stop members started by hand as sessions,
// newest first; (4) wait up to 25 s for every member process to go.
// Lifeline holders are never signalled or called.
func stopFormation(ctx context.Context, env *Env, id string, timeout time.Duration, jsonOut bool) int {
	if why := diag.FormationIDFault(id); why != "" {
		return fail(env, "stop", diag.RunNotFormationID(id, why))
	}
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return fail(env, "stop", err)
	}
	recs, err := murhome.ListRunning(home)
	if err != nil {
		return fail(env, "stop", err)
	}
	var members []*murhome.Running // newest first, as List returns them
	stale := 0
	for _, r := range recs {
		if r.FormationID != id {
			continue
		}
		if l := r.Check(); l == murhome.Gone || l == murhome.Reused {
			_ = murhome.RemoveRunning(home, r.SessionID)
			stale++
			continue
		}
		members = append(members, r)
	}
	switch {
	case len(members) == 0 && stale > 0:
		return fail(env, "stop", diag.RunFormationGone(id, stale))
	case len(members) == 0:
		return fail(env, "stop", diag.RunNoFormationMember(id))
	}
	launcherText, err := stopLauncher(ctx, id, members, timeout)
	if err != nil {
		return fail(env, "stop", err)
	}
	var hand []*murhome.Running
	for _, r := range members {
		if byHand(r) {
			hand = append(hand, r)
		}
	}
	doc := stoppedFormation{FormationID: id, Launcher: launcherText, Members: []stoppedMember{}, Sessions: []*stopped{}}
	var handErr error
	for _, r := range hand { // newest first
		out, err := stopSession(ctx, home, r, timeout)
		if err != nil {
			handErr = errors.Join(handErr, err)
			continue
		}
		doc.Sessions = append(doc.Sessions, out)
	}
	pollUntil(ctx, formationMembersWait, func() bool { return len(stillRunning(members)) == 0 })
	alive := stillRunning(members)
	var b strings.Builder
	fmt.Fprintf(&b, "stopped:  %s\nlauncher: %s\n", id, launcherText)
	for _, r := range members {
		ending := memberEnding(r, alive)
		doc.Members = append(doc.Members, stoppedMember{SessionID: r.SessionID, Name: r.Name, Version: r.Version, Ending: ending})
		fmt.Fprintf(&b, "member:   %s  %s@%s  %s\n", r.SessionID, r.Name, r.Version, ending)
	}
	for _, s := range doc.Sessions {
		b.WriteString("\n" + s.text())
	}
	if jsonOut {
		if err := writeJSON(env.Stdout, doc); err != nil && handErr == nil {
			handErr = err
		}
	} else {
		fmt.Fprint(env.Stdout, b.String())
	}
	if handErr != nil {
		if d, ok := diag.As(handErr); ok {
			return fail(env, "stop", d)
		}
		return fail(env, "stop", handErr)
	}
	if len(alive) > 0 {
		ids := make([]string, 0, len(alive))
		for _, r := range members {
			if alive[r.SessionID] {
				ids = append(ids, r.SessionID)
			}
		}
		return fail(env, "stop", diag.RunFormationNotEnded(id, fmt.Sprintf("%d of its members were still running 25 seconds later: %s", len(ids), strings.Join(ids, ", "))))
	}
	return 0
}

// stoppedFormation is `mur stop <frm_id> --json` (docs/json.md): FCLI-6's
// lines, and a stopped block per member started by hand.
type stoppedFormation struct {
	FormationID string          `json:"formation_id"`
	Launcher    string          `json:"launcher"` // the launcher: line's text
	Members     []stoppedMember `json:"members"`
	Sessions    []*stopped      `json:"sessions"`
}

// stoppedMember is one member: line.
type stoppedMember struct {
	SessionID string `json:"session_id"`
	Name      string `json:"name"`
	Version   string `json:"version"`
	Ending    string `json:"ending"`
}

// byHand reports whether a member was started by hand: it holds no lifeline
// and no spawner (FCLI-6 step 3).
func byHand(r *murhome.Running) bool { return !r.FormationLifeline && r.SpawnedBy == "" }

// stopLauncher is FCLI-6 step 2; it returns the launcher: line's text.
func stopLauncher(ctx context.Context, id string, members []*murhome.Running, timeout time.Duration) (string, error) {
	var found []murhome.Launcher
	for _, r := range members {
		if !r.FormationLifeline || r.FormationLauncher == nil {
			continue
		}
		l := *r.FormationLauncher
		dup := false
		for _, f := range found {
			dup = dup || f == l
		}
		if !dup {
			found = append(found, l)
		}
	}
	switch len(found) {
	case 0:
		return "none — no running member records one", nil
	case 1:
	default:
		pids := make([]string, len(found))
		for i, l := range found {
			pids[i] = fmt.Sprintf("pid %d", l.PID)
		}
		return "", diag.RunFormationNotEnded(id, fmt.Sprintf("its members record %d different launchers (%s)", len(found), strings.Join(pids, ", ")))
	}
	l := found[0]
	gone := func() bool {
		c := murhome.Check(l.PID, l.ProcessStart)
		return c == murhome.Gone || c == murhome.Reused
	}
	already := fmt.Sprintf("none — pid %d had already exited, so every lifeline was already closed", l.PID)
	if timeout > 0 {
		switch err := murhome.SignalVerified(l.PID, l.ProcessStart, syscall.SIGTERM); {
		case errors.Is(err, murhome.ErrGone), errors.Is(err, murhome.ErrReused):
			return already, nil
		case err != nil:
			return "", diag.RunFormationNotEnded(id, fmt.Sprintf("SIGTERM to its launcher, pid %d, was refused: %s", l.PID, refusal(err)))
		}
		if pollUntil(ctx, timeout, gone) {
			return fmt.Sprintf("pid %d, SIGTERM", l.PID), nil
		}
	}
	switch err := murhome.SignalVerified(l.PID, l.ProcessStart, syscall.SIGKILL); {
	case (errors.Is(err, murhome.ErrGone) || errors.Is(err, murhome.ErrReused)) && timeout == 0:
		return already, nil
	case errors.Is(err, murhome.ErrGone), errors.Is(err, murhome.ErrReused):
		return fmt.Sprintf("pid %d, SIGTERM", l.PID), nil // it ended just now
	case err != nil:
		return "", diag.RunFormationNotEnded(id, fmt.Sprintf("SIGKILL to its launcher, pid %d, was refused: %s", l.PID, refusal(err)))
	}
	if !pollUntil(ctx, stopKillWait, gone) {
		return "", diag.RunFormationNotEnded(id, fmt.Sprintf("its launcher, pid %d, was still running 5 seconds after SIGKILL", l.PID))
	}
	return fmt.Sprintf("pid %d, SIGKILL after %ds", l.PID, int(timeout/time.Second)), nil
}

// refusal is the kernel's reason a signal was not delivered.
func refusal(err error) string {
	if errors.Is(err, murhome.ErrStartUnreadable) {
		return "its start time could not be read"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// stillRunning is the set of members whose process still runs.
func stillRunning(members []*murhome.Running) map[string]bool {
	out := map[string]bool{}
	for _, r := range members {
		if l := r.Check(); l != murhome.Gone && l != murhome.Reused {
			out[r.SessionID] = true
		}
	}
	return out
}

// memberEnding is FCLI-6's <ending>, first match.
func memberEnding(r *murhome.Running, alive map[string]bool) string {
	switch {
	case byHand(r):
		return "started by hand — stopped as one session below"
	case alive[r.SessionID]:
		return "still running"
	}
	var formationEnded, spawnerEnded bool
	sessionEnd := ""
	if f, err := os.Open(filepath.Join(r.RecordsDir, murhome.TraceFile)); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			l, err := trace.ParseLine(sc.Bytes())
			if err != nil {
				continue
			}
			switch l.EventType {
			case "formation_ended":
				formationEnded = true
			case "spawner_ended": // a delegated child's (formations.md FCLI-6; tools.md DLG-6)
				spawnerEnded = true
			case "session_end":
				se, err := trace.As[trace.SessionEnd](l)
				if err != nil {
					continue
				}
				sessionEnd = cmp.Or(se.ExitStatus, "unknown")
			}
		}
	}
	switch {
	case formationEnded:
		return "formation_ended"
	case spawnerEnded:
		return "spawner_ended"
	case sessionEnd != "":
		return "session_end " + sessionEnd
	}
	return "no session_end"
}
