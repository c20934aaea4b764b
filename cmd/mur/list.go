package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/murmur-go/mur/runtime/store"
)

// cmdList is `mur list` (capsule.md CLI-7).
var cmdList = &command{
	name:    "list",
	summary: "list installed artifacts",
	run:     runList,
}

const listUsage = `Usage: mur list [-g | --all] [--json]

Lists the artifacts installed in the project store (the nearest directory at
or above the current one holding murmur.yaml or roster.yaml); with -g, or
outside any project, the global store; with --all, both, SCOPE first.
--json prints one JSON document instead, full sha256 included (docs/json.md).`

// storeNames names the stores mur list read, each with its directory:
// "the project store (<dir>)", joined by " or ".
func storeNames(ss store.Stores, scopes []store.Scope) string {
	var names []string
	for _, sc := range scopes {
		if root := ss.Root(sc); root != "" {
			names = append(names, fmt.Sprintf("the %s store (%s)", sc, root))
		}
	}
	return strings.Join(names, " or ")
}

// shortHash is how many hex digits of an artifact's sha256 mur list shows.
const shortHash = 12

func runList(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	global := fs.Bool("g", false, "list the global store")
	all := fs.Bool("all", false, "list both stores")
	jsonOut := fs.Bool("json", false, "print one JSON document (docs/json.md)")
	rest, code, done := parseFlags(env, "list", listUsage, fs, args)
	if done {
		return code
	}
	if len(rest) > 0 {
		return usageError(env, "list", fmt.Sprintf("unexpected argument '%s'", rest[0]))
	}
	if *global && *all {
		return usageError(env, "list", "-g and --all cannot be used together")
	}
	ss, err := cwdStores(env)
	if err != nil {
		return fail(env, "list", err)
	}
	var scopes []store.Scope
	switch {
	case *all:
		scopes = []store.Scope{store.ScopeProject, store.ScopeGlobal}
	case *global || ss.ProjectDir == "":
		scopes = []store.Scope{store.ScopeGlobal}
	default:
		scopes = []store.Scope{store.ScopeProject}
	}
	var rows []store.Installed
	for _, sc := range scopes {
		rs, err := ss.List(sc)
		if err != nil {
			return fail(env, "list", err)
		}
		rows = append(rows, rs...)
	}
	if *jsonOut {
		if err := writeJSON(env.Stdout, listDocument(rows)); err != nil {
			return fail(env, "list", err)
		}
		return 0
	}
	if len(rows) == 0 {
		fmt.Fprintln(env.Stdout, "no artifacts installed in "+storeNames(ss, scopes))
		return 0
	}
	writeList(env.Stdout, rows, *all)
	return 0
}

// listJSON is `mur list --json` (docs/json.md): the rows the table shows, in
// its order, with the full sha256.
type listJSON struct {
	Artifacts []listArtifact `json:"artifacts"`
}

// listArtifact is one installed artifact of listJSON.
type listArtifact struct {
	Scope       store.Scope `json:"scope"`
	Name        string      `json:"name"`
	Version     string      `json:"version"`
	Runtime     string      `json:"runtime"`
	SHA256      string      `json:"sha256"`
	InstalledAt string      `json:"installed_at"`
	SourcePath  string      `json:"source_path"`
}

func listDocument(rows []store.Installed) listJSON {
	doc := listJSON{Artifacts: make([]listArtifact, 0, len(rows))}
	for _, r := range rows {
		m := r.Meta
		doc.Artifacts = append(doc.Artifacts, listArtifact{Scope: r.Scope, Name: m.Name, Version: m.Version,
			Runtime: m.Runtime, SHA256: m.SHA256, InstalledAt: m.InstalledAt, SourcePath: m.SourcePath})
	}
	return doc
}

// writeList prints CLI-7's table: columns padded to their widest value and
// joined by two spaces; the last column is not padded.
func writeList(w io.Writer, rows []store.Installed, withScope bool) {
	table := [][]string{{"NAME", "VERSION", "RUNTIME", "SHA256"}}
	if withScope {
		table[0] = append([]string{"SCOPE"}, table[0]...)
	}
	for _, r := range rows {
		sum := r.Meta.SHA256
		if len(sum) > shortHash {
			sum = sum[:shortHash]
		}
		row := []string{r.Meta.Name, r.Meta.Version, r.Meta.Runtime, sum}
		if withScope {
			row = append([]string{string(r.Scope)}, row...)
		}
		table = append(table, row)
	}
	writeTable(w, table)
}

// writeTable pads every column but the last to its widest cell (in runes)
// and joins cells with two spaces.
func writeTable(w io.Writer, table [][]string) {
	widths := make([]int, len(table[0]))
	for _, row := range table {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, row := range table {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(c))))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}
