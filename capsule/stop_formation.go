package capsule

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

// FormationStop says which formation StopFormation ends and how.
type FormationStop struct {
	// Home is $MURMUR_HOME, where the members' running records are.
	Home string
	// ID is the formation's frm_ id.
	ID string
	// Timeout is the wait between SIGTERM and SIGKILL, for the launcher and
	// for each member started by hand; 0 sends SIGKILL at once.
	Timeout time.Duration
	// MembersWait bounds the wait for every member process to go (step 4);
	// 0 is the launcher's own teardown grace, 25 s, which E-RUN-024 names.
	MembersWait time.Duration
}

// formationMembersWait is FCLI-6 step 4's default wait.
const formationMembersWait = 25 * time.Second

// StopFormation ends a formation (`mur stop <frm_id>`, formations.md FCLI-6):
// (1) collect the running records of the formation, removing stale ones;
// (2) SIGTERM its one recorded launcher, SIGKILL after Timeout; (3) stop
// members started by hand as sessions, newest first; (4) wait for every
// member process to go. Lifeline holders are never signalled or called.
// A refusal before anything was signalled returns no document; once the
// launcher was dealt with, the document comes back beside the error of a
// member stopped by hand that could not be, or else E-RUN-024 naming the
// members still running.
func StopFormation(ctx context.Context, req FormationStop) (*StoppedFormation, error) {
	id, home, timeout := req.ID, req.Home, req.Timeout
	if why := diag.FormationIDFault(id); why != "" {
		return nil, diag.RunNotFormationID(id, why)
	}
	recs, err := murhome.ListRunning(home)
	if err != nil {
		return nil, err
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
		return nil, diag.RunFormationGone(id, stale)
	case len(members) == 0:
		return nil, diag.RunNoFormationMember(id)
	}
	launcherText, err := stopLauncher(ctx, id, members, timeout)
	if err != nil {
		return nil, err
	}
	var hand []*murhome.Running
	for _, r := range members {
		if byHand(r) {
			hand = append(hand, r)
		}
	}
	doc := &StoppedFormation{FormationID: id, Launcher: launcherText, Members: []StoppedMember{}, Sessions: []*Stopped{}}
	var handErr error
	for _, r := range hand { // newest first
		out, err := Stop(ctx, home, r, timeout)
		if err != nil {
			handErr = errors.Join(handErr, err)
			continue
		}
		doc.Sessions = append(doc.Sessions, out)
	}
	wait := cmp.Or(req.MembersWait, formationMembersWait)
	pollUntil(ctx, wait, func() bool { return len(stillRunning(members)) == 0 })
	alive := stillRunning(members)
	for _, r := range members {
		doc.Members = append(doc.Members, StoppedMember{SessionID: r.SessionID, Name: r.Name, Version: r.Version, Ending: memberEnding(r, alive)})
	}
	if handErr != nil {
		if d, ok := diag.As(handErr); ok {
			return doc, d
		}
		return doc, handErr
	}
	if len(alive) > 0 {
		ids := make([]string, 0, len(alive))
		for _, r := range members {
			if alive[r.SessionID] {
				ids = append(ids, r.SessionID)
			}
		}
		return doc, diag.RunFormationNotEnded(id, fmt.Sprintf("%d of its members were still running 25 seconds later: %s", len(ids), strings.Join(ids, ", ")))
	}
	return doc, nil
}

// Text is FCLI-6's stdout block: the formation's lines, then a stopped block
// per member started by hand.
func (d *StoppedFormation) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "stopped:  %s\nlauncher: %s\n", d.FormationID, d.Launcher)
	for _, m := range d.Members {
		fmt.Fprintf(&b, "member:   %s  %s@%s  %s\n", m.SessionID, m.Name, m.Version, m.Ending)
	}
	for _, s := range d.Sessions {
		b.WriteString("\n" + s.Text())
	}
	return b.String()
}

// StoppedFormation is what StopFormation did, and `mur stop <frm_id>
// --json` (docs/json.md): FCLI-6's lines, and a stopped block per member
// started by hand.
type StoppedFormation struct {
	FormationID string          `json:"formation_id"`
	Launcher    string          `json:"launcher"` // the launcher: line's text
	Members     []StoppedMember `json:"members"`
	Sessions    []*Stopped      `json:"sessions"`
}

// StoppedMember is one member: line.
type StoppedMember struct {
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
