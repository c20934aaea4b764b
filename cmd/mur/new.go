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
	"github.com/murmur-go/mur/internal/diag"
	"github.com/murmur-go/mur/runtime/manifest"
)

// cmdNew is `mur new <name>` (capsule.md CLI-8); `mur new --roster` is
// formations.md FCLI-9 (new_roster.go).
var cmdNew = &command{
	name:    "new",
	summary: "scaffold a capsule, or a formation with --roster",
	run:     runNew,
}

const newUsage = `Usage: mur new <name>
       mur new --roster <name>

mur new <name> writes ./<name>/murmur.yaml, a capsule on the scripted driver
that lists files, and ./<name>/script.yaml, the driver's turns. It runs with
no model and no key. mur new --roster <name> scaffolds a formation instead.`

// newVersion is the version a scaffolded capsule starts at.
const newVersion = "0.1.0"

// newManifest is capsule.md example 8a with the name substituted (CLI-8).
const newManifest = `# %[1]s/murmur.yaml
name: %[1]s
version: "%[2]s"
inference:
  driver:
    kind: scripted
    script: script.yaml        # relative to this file
  max_turns: 4
  system_prompt: You list files when asked.
capabilities:
  shell:
    allow: [bash]
trace:
  retain:
    max_sessions: 20
`

// newScript is capsule.md DRV-7's example script (CLI-8).
const newScript = `script_version: 1                # required, 1
rules:                           # the first rule matching the task text wins
  - match: {contains: "list"}    # one of: contains (substring), regex (RE2, unanchored), always: true
    repeat: false                # true: after the last turn, replay it forever
    turns:
      - tool_calls: [{name: bash, input: {command: "ls -1"}}]
      - text: "Files:\n{{tool_result}}"
fallback:                        # optional; used when no rule matches
  turns: [{text: "I can only list files."}]
`

// newStdout is CLI-8's report.
const newStdout = `Scaffolded capsule '%[1]s' in ./%[1]s
  %[1]s/murmur.yaml   capsule %[1]s@%[2]s, scripted driver
  %[1]s/script.yaml    the scripted driver's turns

Next:
  mur run --capsule %[1]s --task "list the files"
`

func runNew(ctx context.Context, env *Env, args []string) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--roster" || a == "-roster" || strings.HasPrefix(a, "--roster=") || strings.HasPrefix(a, "-roster=") {
			return newRoster(ctx, env, args)
		}
	}
	fs := flag.NewFlagSet("new", flag.ContinueOnError)
	fs.Bool("roster", false, "scaffold a formation: roster.yaml and two members (formations.md FCLI-9)")
	pos, code, done := parseInterspersed(env, "new", newUsage, fs, args)
	if done {
		return code
	}
	switch {
	case len(pos) == 0:
		return usageError(env, "new", "missing <name>")
	case len(pos) > 1:
		return usageError(env, "new", fmt.Sprintf("unexpected argument '%s'", pos[1]))
	}
	name := pos[0]
	if err := scaffoldCapsule(name); err != nil {
		return fail(env, "new", err)
	}
	fmt.Fprintf(env.Stdout, newStdout, name, newVersion)
	return 0
}

// scaffoldCapsule writes ./<name>/ through ./.<name>.tmp-<id> and a rename,
// so an error leaves nothing behind (CLI-8).
func scaffoldCapsule(name string) error {
	if p := manifest.NameProblem(name); p != "" {
		return diag.NewName(name, p)
	}
	if _, err := os.Lstat(name); err == nil {
		return diag.NewExists(name)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp := fmt.Sprintf(".%s.tmp-%s", name, a2a.NewID(""))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; cleans up on failure
	files := []struct{ name, text string }{
		{manifest.FileName, fmt.Sprintf(newManifest, name, newVersion)},
		{"script.yaml", newScript},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(tmp, f.name), []byte(f.text), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	if _, err := os.Lstat(name); err == nil { // created meanwhile
		return diag.NewExists(name)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("create ./%s: %w", name, err)
	}
	return nil
}
