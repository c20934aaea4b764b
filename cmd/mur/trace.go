package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/traceview"
)

// cmdTrace is `mur trace show` (capsule.md CLI-9, CLI-10).
var cmdTrace = &command{
	name:    "trace",
	summary: "show a session's trace",
	run:     runTrace,
}

const traceUsage = `Usage: mur trace show [<session> | <frm_id>] [--workdir <dir>] [--json] [--follow]

Summarizes one session's trace.jsonl, read from its records directory under
$MURMUR_HOME/records/<workdir>/. <session> is a full session id or the
last 4 or more characters of one (either found from any directory, this
workdir's sessions first), @N (the N-th newest session here) or a path to a
trace.jsonl or a session directory; the default is @1. A running session's trace is shown as it is so far, marked live.
--json prints the summary as one JSON document, nothing cut (docs/json.md).
--follow prints the session's timeline as its records arrive, until its
session_end. <frm_id> (frm_…) lists the formation's member sessions, then
their records as one timeline, calls between members as → and ←; with
--json, each member session's summary.`

func runTrace(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("trace show", flag.ContinueOnError)
	workdir := fs.String("workdir", "", "the `dir` whose records group holds the sessions (default: the current directory)")
	jsonOut := fs.Bool("json", false, "print the summary as one JSON document (docs/json.md)")
	follow := fs.Bool("follow", false, "print the session's timeline as records arrive, until its session_end")
	if len(args) == 0 {
		return usageError(env, "trace", "missing subcommand: mur trace show")
	}
	switch args[0] {
	case "-h", "--help", "help":
		printUsage(env.Stdout, traceUsage, fs)
		return 0
	case "show":
	default:
		return usageError(env, "trace", unknownWord("subcommand", args[0], []string{"show"}))
	}
	pos, code, done := parseInterspersed(env, "trace show", traceUsage, fs, args[1:])
	if done {
		return code
	}
	if len(pos) > 1 {
		return usageError(env, "trace show", fmt.Sprintf("unexpected argument '%s'", pos[1]))
	}
	var arg string
	if len(pos) == 1 {
		arg = pos[0]
	}
	if strings.HasPrefix(arg, a2a.PrefixFormation) { // FCLI-8
		if *follow {
			return usageError(env, "trace show", "a formation id does not take --follow")
		}
		return traceFormation(env, arg, *jsonOut)
	}
	if *follow {
		if *jsonOut {
			return usageError(env, "trace show", "--follow cannot be used with --json")
		}
		path, err := tracePath(env, *workdir, arg)
		if err != nil {
			return fail(env, "trace show", err)
		}
		return followTrace(ctx, env, path)
	}
	tr, err := traceShow(env, *workdir, arg)
	if err != nil {
		return fail(env, "trace show", err)
	}
	if *jsonOut {
		if err := writeJSON(env.Stdout, traceview.Summarize(tr)); err != nil {
			return fail(env, "trace show", err)
		}
		return 0
	}
	fmt.Fprint(env.out(), traceview.Render(tr))
	return 0
}

// traceShow resolves the session (CLI-9) and reads its trace.
func traceShow(env *Env, workdir, arg string) (*traceview.Trace, error) {
	path, err := tracePath(env, workdir, arg)
	if err != nil {
		return nil, err
	}
	return traceview.Read(path)
}

// tracePath resolves the session (CLI-9) to its trace.jsonl: in the
// workdir's records group, or given a full session id, wherever it
// ran.
func tracePath(env *Env, workdir, arg string) (string, error) {
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return "", err
	}
	byID := workdir == "" && a2a.ValidID(arg, a2a.PrefixSession)
	bySuffix := workdir == "" && !byID && len(arg) >= murhome.MinSuffix && !strings.HasPrefix(arg, "@") && !strings.ContainsAny(arg, "/.")
	if workdir == "" {
		if workdir, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	group, err := murhome.GroupDir(home, workdir)
	if err == nil {
		var path string
		if path, err = murhome.Resolve(group, arg); err == nil || !byID && !bySuffix {
			return path, err
		}
	}
	if byID {
		if dir := murhome.FindSession(home, arg); dir != "" {
			return filepath.Join(dir, murhome.TraceFile), nil
		}
		return "", diag.TrcNoMatch(arg)
	}
	// A suffix that names no session here is looked for wherever a session
	// ran, as a full id is.
	if bySuffix && noSessionHere(err) {
		switch ids := murhome.FindSessionSuffix(home, arg); len(ids) {
		case 0:
			if d, ok := diag.As(err); ok {
				return "", d
			}
			return "", diag.TrcNoMatch(arg)
		case 1:
			return filepath.Join(ids[0], murhome.TraceFile), nil
		default:
			names := make([]string, len(ids))
			for i, d := range ids {
				names[i] = filepath.Base(d)
			}
			return "", diag.TrcAmbiguous(arg, names)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", diag.IONotFound(workdir).WithErr(err)
	}
	return "", err
}

// noSessionHere reports whether err says the records group holds no
// session the address names (none at all, none matching, or no group).
func noSessionHere(err error) bool {
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	d, ok := diag.As(err)
	return ok && d.Code == diag.ETRC002 && strings.HasPrefix(d.Msg, "no session ")
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments (`mur trace show @2 --workdir x`), returning the
// positional ones in order. done and code are as parseFlags's. After "--",
// everything is positional.
func parseInterspersed(env *Env, name, usage string, fs *flag.FlagSet, args []string) (pos []string, code int, done bool) {
	for {
		before := len(args)
		rest, code, done := parseFlags(env, name, usage, fs, args)
		if done {
			return nil, code, true
		}
		if len(rest) == 0 {
			return pos, 0, false
		}
		// flag.Parse drops a "--" terminator: all that follows is positional.
		consumed := args[:before-len(rest)]
		if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), 0, false
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
