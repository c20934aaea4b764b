package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/murmur-go/mur/launcher/view"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/traceview"
)

// followEvery is how often --follow looks for new records: a trace file has
// no change notice, and a person reading a timeline notices nothing shorter.
const followEvery = 200 * time.Millisecond

// followTrace is `mur trace show --follow`: the trace's timeline
// so far, then each record as it arrives, until session_end (exit 0) or an
// interrupt (130).
func followTrace(ctx context.Context, env *Env, path string) int {
	f, err := os.Open(path)
	if err != nil {
		return fail(env, "trace show", diag.IONotFound(path).WithErr(err))
	}
	defer f.Close()
	out := env.out()
	for l, err := range trace.Tail(ctx, f, followEvery) {
		var me *trace.MalformedError
		switch {
		case errors.As(err, &me):
			return fail(env, "trace show", diag.TrcMalformed(path, me.Line, me.Err.Error()))
		case err != nil:
			return fail(env, "trace show", diag.IOError(path, err.Error()))
		}
		if text, ok := traceview.EventOf(l); ok {
			fmt.Fprintf(out, "%s  %s\n", traceview.Clock(l.Timestamp), text)
		}
		if l.EventType == "session_end" {
			return 0
		}
	}
	return 130 // interrupted
}

// traceFormation is `mur trace show <frm_id>` (FCLI-8): the formation's
// member sessions, then their records as one timeline; with jsonOut one
// document holding each member session's summary.
func traceFormation(env *Env, frm string, jsonOut bool) int {
	if why := diag.FormationIDFault(frm); why != "" {
		return fail(env, "trace show", diag.RunNotFormationID(frm, why))
	}
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return fail(env, "trace show", err)
	}
	members, live, err := view.Members(home, frm)
	if err != nil {
		return fail(env, "trace show", err)
	}
	if len(members) == 0 {
		return fail(env, "trace show", diag.TrcNoFormation(frm, home))
	}
	type row struct{ name, ses, role, status, dir string }
	var rows []row
	var events []traceview.Event
	doc := formationTraceJSON{FormationID: frm, Running: live, Members: []formationMemberJSON{}}
	sort.SliceStable(members, func(i, j int) bool { return members[i].Entry && !members[j].Entry })
	for _, m := range members {
		path := filepath.Join(m.RecordsDir, murhome.TraceFile)
		tr, err := traceview.Read(path)
		if err != nil {
			return fail(env, "trace show", err)
		}
		name := tr.Start.FormationMember
		if name == "" {
			name = tr.Start.CapsuleName
		}
		role := "peer"
		if m.Entry {
			role = "entry"
		}
		rows = append(rows, row{name, tr.SessionID, role, tr.End.ExitStatus, m.RecordsDir})
		if jsonOut {
			doc.Members = append(doc.Members, formationMemberJSON{Member: name, Role: role, RecordsDir: m.RecordsDir, Summary: traceview.Summarize(tr)})
			continue
		}
		evs, err := memberEvents(path, name)
		if err != nil {
			return fail(env, "trace show", err)
		}
		events = append(events, evs...)
	}
	if jsonOut {
		if err := writeJSON(env.Stdout, doc); err != nil {
			return fail(env, "trace show", err)
		}
		return 0
	}
	w := env.out()
	state := "ended"
	if live {
		state = "running"
	}
	fmt.Fprintf(w, "── Formation %s (%s) ──\n", frm, state)
	nw := 0
	for _, r := range rows {
		nw = max(nw, len(r.name))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %-5s  %s  %-9s  %s\n", nw, r.name, r.role, r.ses, r.status, r.dir)
	}
	fmt.Fprintf(w, "\n── Timeline ──\n%s", traceview.RenderTimeline(events))
	return 0
}

// memberEvents reads one member's trace as timeline events.
func memberEvents(path, member string) ([]traceview.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, diag.IONotFound(path).WithErr(err)
	}
	defer f.Close()
	var out []traceview.Event
	for l, err := range trace.Lines(f) {
		if err != nil {
			break // a live trace's last line may be half written; what came before stands
		}
		if text, ok := traceview.EventOf(l); ok {
			out = append(out, traceview.Event{AtMS: l.Timestamp, Member: member, Text: text})
		}
	}
	return out, nil
}

// formationTraceJSON is `mur trace show <frm_id> --json` (docs/json.md):
// the formation's member sessions, the entry first, each with its summary.
type formationTraceJSON struct {
	FormationID string                `json:"formation_id"`
	Running     bool                  `json:"running"`
	Members     []formationMemberJSON `json:"members"`
}

type formationMemberJSON struct {
	Member     string            `json:"member"`
	Role       string            `json:"role"` // entry | peer
	RecordsDir string            `json:"records_dir"`
	Summary    traceview.Summary `json:"summary"`
}
