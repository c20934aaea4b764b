package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/launcher"
	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
)

// doctorFormationDir runs `mur doctor` in a formation directory (formations.md
// DOC-1, DOC-2): dir holds roster.yaml and no murmur.yaml. It prints the whole
// report to w and returns the exit code and the report for --json.
func doctorFormationDir(ctx context.Context, env *Env, w io.Writer, dir string) (int, doctorJSON, bool) {
	fmt.Fprintf(w, "No murmur.yaml in %s: checking its roster.yaml. Run mur doctor in a member's source directory to check that member's artifacts.\n\n", dir)
	res := doctorRosterBlock(ctx, env, w, dir, w == io.Discard)
	fixes := append(append([]string{}, res.errFixes...), res.warnFixes...)
	doc := doctorJSON{Roster: &res.doc, Checks: []doctorCheck{}, Warnings: []diagJSON{}, Errors: res.errs, Warned: res.warns, Fixes: fixes}
	fmt.Fprintln(w)
	switch {
	case res.errs > 0:
		fmt.Fprintln(w, "The roster has 1 error.")
	case res.warns > 0:
		fmt.Fprintf(w, "The roster has no errors and %d %s.\n", res.warns, rosterPlural(res.warns, "warning"))
	default:
		fmt.Fprintln(w, "All checks passed.")
		return 0, doc, res.strict
	}
	fmt.Fprintln(w)
	for _, h := range fixes {
		fmt.Fprintf(w, "Fix: %s\n", h)
	}
	if res.errs > 0 {
		return 1, doc, res.strict
	}
	return 0, doc, res.strict
}

// rosterResult is what the Roster block adds to doctor's tally: errors (0 or
// 1), warnings, the Fix: hints in order, and the block for --json.
type rosterResult struct {
	errs, warns         int
	errFixes, warnFixes []string
	doc                 rosterJSON
	strict              bool // the roster's strict: true
}

// rosterJSON is the Roster block in `mur doctor --json` (docs/json.md).
type rosterJSON struct {
	File        string             `json:"file"`
	Admitted    bool               `json:"admitted"`
	Members     []rosterMemberJSON `json:"members"`
	All         bool               `json:"reachability_all"`
	Edges       []rosterEdgeJSON   `json:"edges"`
	Error       *diagJSON          `json:"error"`
	RosterWarns []diagJSON         `json:"warnings"`
}

type rosterMemberJSON struct {
	Name          string `json:"name"`
	Capsule       string `json:"capsule"`
	Version       string `json:"version"`
	Entry         bool   `json:"entry"`
	ServesPeers   bool   `json:"serves_peers"`
	Authenticated bool   `json:"authenticated"`
}

type rosterEdgeJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// doctorRosterBlock prints the Roster block for the roster.yaml in dir to w
// (DOC-1, DOC-3) and returns what the tally counts. A refused roster's code
// and hint also go to stderr. It launches and writes nothing.
func doctorRosterBlock(ctx context.Context, env *Env, w io.Writer, dir string, stderrToo bool) rosterResult {
	path := filepath.Join(dir, roster.FileName)
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	res := rosterResult{doc: rosterJSON{File: path, Members: []rosterMemberJSON{}, Edges: []rosterEdgeJSON{}, RosterWarns: []diagJSON{}}}
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "error: %s\n", err)
		res.errs = 1
		return res
	}
	f, ws, err := roster.Admit(path, launcher.NewStoreResolver(filepath.Dir(path), home))
	if err != nil {
		d, ok := diag.As(err)
		if !ok {
			d = diag.RosUnreadable(path, err.Error())
		}
		fmt.Fprint(w, launcher.RosterBlock(path, nil, nil, d))
		if stderrToo { // --json: the report holds it, and stderr says it too
			fmt.Fprint(env.Stderr, d.Render())
		}
		res.errs, res.errFixes, res.doc.Error = 1, []string{d.Hint}, toDiagJSON(d)
		return res
	}
	cwd, _ := os.Getwd()
	ws = append(ws, launcher.MemberWarnings(f, env.Getenv, cwd, false)...) // the members' own manifests too
	fmt.Fprint(w, launcher.RosterBlock(path, f, ws, nil))
	for _, wd := range ws {
		res.warnFixes = append(res.warnFixes, wd.Hint)
	}
	res.warns, res.strict = len(ws), f.Roster.Strict
	res.doc.Admitted, res.doc.All, res.doc.RosterWarns = true, f.Roster.All, diagsJSON(ws)
	for _, m := range f.Members {
		res.doc.Members = append(res.doc.Members, rosterMemberJSON{Name: m.Name, Capsule: m.Capsule, Version: m.Version,
			Entry: m.Entry, ServesPeers: m.Facts.PeerTasks, Authenticated: m.Facts.Authenticated})
	}
	for _, e := range f.Edges {
		res.doc.Edges = append(res.doc.Edges, rosterEdgeJSON{From: e.From, To: e.To})
	}
	return res
}

// rosterPlural is word with an "s" unless n is 1 (capsule.md CLI-14).
func rosterPlural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
