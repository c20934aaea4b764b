package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
)

// cmdPs is `mur ps` (capsule.md CLI-12, formations.md FCLI-7).
var cmdPs = &command{
	name:    "ps",
	summary: "list running sessions",
	run:     runPs,
}

const psUsage = `Usage: mur ps [--json]

Lists the sessions running on this machine, newest first, from their running
records under $MURMUR_HOME/running/. STATUS is "running" when the recorded
process still runs and its door's public card answers within 1 s, and
"unreachable" when the process is (or may be) the recorded one but its door is
silent. A record whose process is gone, or whose pid another process now
holds, is removed and reported on stderr as pruned. --json prints one JSON
document instead of the table (docs/json.md).`

// cardProbeTimeout bounds each door's public-card probe (CLI-12).
const cardProbeTimeout = time.Second

// psRow is one listed record and what the probe found.
type psRow struct {
	rec    *murhome.Running
	status string
}

func runPs(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("ps", flag.ContinueOnError)
	jsonOut := fs.Bool("json", false, "print one JSON document (docs/json.md)")
	rest, code, done := parseFlags(env, "ps", psUsage, fs, args)
	if done {
		return code
	}
	if len(rest) > 0 {
		return usageError(env, "ps", fmt.Sprintf("unexpected argument '%s'", rest[0]))
	}
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return fail(env, "ps", err)
	}
	recs, err := murhome.ListRunning(home)
	if err != nil {
		return fail(env, "ps", err)
	}
	var rows []*psRow
	pruned := []psPruned{}
	for _, r := range recs {
		var reason string
		switch r.Check() {
		case murhome.Gone:
			reason = diag.ReasonNoSuchPID(r.PID)
		case murhome.Reused:
			reason = diag.ReasonPIDReused(r.PID)
		default:
			rows = append(rows, &psRow{rec: r})
			continue
		}
		if err := murhome.RemoveRunning(home, r.SessionID); err != nil {
			continue // not listed: its process is gone; the record stays for the next look
		}
		pruned = append(pruned, psPruned{SessionID: r.SessionID, Reason: reason, FormationID: r.FormationID})
		line := fmt.Sprintf("pruned: %s — %s", r.SessionID, reason)
		if r.FormationID != "" {
			line += fmt.Sprintf(" (formation %s)", r.FormationID)
		}
		fmt.Fprintln(env.Stderr, line)
	}
	if len(rows) == 0 && !*jsonOut {
		fmt.Fprintln(env.Stdout, "no running capsules")
		return 0
	}
	probe(ctx, rows)
	rows = groupByFormation(rows)
	if *jsonOut {
		if err := writeJSON(env.Stdout, psDocument(rows, pruned, time.Now())); err != nil {
			return fail(env, "ps", err)
		}
		return 0
	}
	fmt.Fprint(env.Stdout, psTable(rows, time.Now()))
	return 0
}

// psJSON is `mur ps --json` (docs/json.md): the listed sessions in the
// table's order, and the records pruned on the way. No token, ever.
type psJSON struct {
	Sessions []psSession `json:"sessions"`
	Pruned   []psPruned  `json:"pruned"`
}

// psSession is one running session of psJSON.
type psSession struct {
	SessionID   string    `json:"session_id"`
	Name        string    `json:"name"`
	Version     string    `json:"version"`
	Status      string    `json:"status"` // running | unreachable
	UptimeSecs  int64     `json:"uptime_secs"`
	StartedAt   time.Time `json:"started_at"`
	PID         int       `json:"pid"`
	URL         string    `json:"url"`
	Workdir     string    `json:"workdir"`
	RecordsDir  string    `json:"records_dir"`
	FormationID string    `json:"formation_id,omitempty"`
	ResumedFrom string    `json:"resumed_from,omitempty"`
}

// psPruned is one pruned record of psJSON.
type psPruned struct {
	SessionID   string `json:"session_id"`
	Reason      string `json:"reason"`
	FormationID string `json:"formation_id,omitempty"`
}

func psDocument(rows []*psRow, pruned []psPruned, now time.Time) psJSON {
	doc := psJSON{Sessions: make([]psSession, 0, len(rows)), Pruned: pruned}
	for _, r := range rows {
		up := int64(max(now.Sub(r.rec.StartedAt), 0) / time.Second)
		doc.Sessions = append(doc.Sessions, psSession{SessionID: r.rec.SessionID, Name: r.rec.Name, Version: r.rec.Version,
			Status: r.status, UptimeSecs: up, StartedAt: r.rec.StartedAt.UTC(), PID: r.rec.PID, URL: r.rec.URL,
			Workdir: r.rec.Workdir, RecordsDir: r.rec.RecordsDir, FormationID: r.rec.FormationID, ResumedFrom: r.rec.ResumedFrom})
	}
	return doc
}

// probe sets each row's status: running when its pid and start time match
// and its public card answers within cardProbeTimeout, else unreachable.
func probe(ctx context.Context, rows []*psRow) {
	var wg sync.WaitGroup
	for _, row := range rows {
		row.status = "unreachable"
		if row.rec.Check() != murhome.Alive {
			continue
		}
		wg.Go(func() {
			c, err := client.New(client.Config{BaseURL: row.rec.URL, RequestTimeout: cardProbeTimeout})
			if err != nil {
				return
			}
			if _, err := c.Card(ctx); err == nil {
				row.status = "running"
			}
		})
	}
	wg.Wait()
}

// groupByFormation keeps one formation's rows adjacent, groups ordered by
// their newest member; a session in no formation is a group of its own
// (FCLI-7). rows arrive newest first.
func groupByFormation(rows []*psRow) []*psRow {
	var order []string
	groups := map[string][]*psRow{}
	for _, r := range rows {
		key := r.rec.FormationID
		if key == "" {
			key = r.rec.SessionID
		}
		if _, seen := groups[key]; !seen {
			order = append(order, key)
		}
		groups[key] = append(groups[key], r)
	}
	out := make([]*psRow, 0, len(rows))
	for _, k := range order {
		out = append(out, groups[k]...)
	}
	return out
}

// psTable renders the header and rows: SESSION (36), CAPSULE (24), STATUS
// (12), UPTIME (9), FORMATION (36, only when a row has a formation id) and
// URL, padded and joined by two spaces (CLI-12, FCLI-7).
func psTable(rows []*psRow, now time.Time) string {
	withFormation := false
	for _, r := range rows {
		withFormation = withFormation || r.rec.FormationID != ""
	}
	line := func(ses, capsule, status, uptime, formation, url string) string {
		cols := []string{pad(ses, 36), pad(capsule, 24), pad(status, 12), pad(uptime, 9)}
		if withFormation {
			cols = append(cols, pad(formation, 36))
		}
		return strings.Join(append(cols, url), "  ") + "\n"
	}
	var b strings.Builder
	b.WriteString(line("SESSION", "CAPSULE", "STATUS", "UPTIME", "FORMATION", "URL"))
	for _, r := range rows {
		frm := r.rec.FormationID
		if frm == "" {
			frm = "-"
		}
		b.WriteString(line(r.rec.SessionID, r.rec.Name+"@"+r.rec.Version, r.status, uptime(now.Sub(r.rec.StartedAt)), frm, r.rec.URL))
	}
	return b.String()
}

func pad(s string, width int) string { return fmt.Sprintf("%-*s", width, s) }

// uptime renders d as HH:MM:SS, with an "Nd " prefix past a day (CLI-12).
func uptime(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	days, s := s/86400, s%86400
	hms := fmt.Sprintf("%02d:%02d:%02d", s/3600, s%3600/60, s%60)
	if days > 0 {
		return fmt.Sprintf("%dd %s", days, hms)
	}
	return hms
}
