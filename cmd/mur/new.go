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
	"github.com/murmur-go/mur/runtime/manifest"
)

// cmdNew is `mur new <name>` (capsule.md CLI-8); `mur new --roster` is
// formations.md FCLI-9 (new_roster.go).
var cmdNew = &command{
	name:    "new",
	summary: "scaffold a capsule, or a formation with --roster",
	run:     runNew,
}

const newUsage = `Usage: mur new <name> [--driver scripted|openai|anthropic|ollama]
       mur new --roster <name> [--driver …]

mur new <name> writes ./<name>/murmur.yaml, a capsule that lists files, and a
.gitignore for what mur writes beside it. On the scripted driver (the
default) it also writes ./<name>/script.yaml, the driver's turns, and runs
with no model and no key; --driver openai, anthropic or ollama points it at
that provider as written (endpoint, model, api_key: ${…}), with a
.env.example naming the key. mur new --roster <name> scaffolds a formation
instead.`

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
` + newManifestRest

// newManifestDriver is newManifest on another driver: %[3]s is its block.
const newManifestDriver = `# %[1]s/murmur.yaml
name: %[1]s
version: "%[2]s"
inference:
%[3]s` + newManifestRest

const newManifestRest = `  max_turns: 4
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

// driverFlag reads --driver's value (one of manifest.Presets), or a usage
// error naming the nearest one.
func driverFlag(v string) (manifest.Preset, error) {
	if p, ok := manifest.FindPreset(v); ok {
		return p, nil
	}
	msg := fmt.Sprintf("--driver '%s' is not one of %s", v, strings.Join(manifest.PresetNames(), ", "))
	if near := diag.Nearest(v, manifest.PresetNames()); near != "" {
		msg += fmt.Sprintf("; did you mean '%s'?", near)
	}
	return manifest.Preset{}, usagef("%s", msg)
}

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
	fs.Bool("roster", false, "scaffold a formation: roster.yaml and two members")
	drv := fs.String("driver", "scripted", "the capsule's `driver`: scripted, openai, anthropic or ollama")
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
	preset, err := driverFlag(*drv)
	if err != nil {
		return fail(env, "new", err)
	}
	name := pos[0]
	if err := scaffoldCapsule(name, preset); err != nil {
		return fail(env, "new", err)
	}
	if preset.Kind == manifest.KindScripted {
		fmt.Fprintf(env.Stdout, newStdout, name, newVersion)
		return 0
	}
	fmt.Fprint(env.Stdout, newDriverStdout(name, preset))
	return 0
}

// newDriverStdout is mur new's report for a capsule on a provider (modelled on
// CLI-8's): its files, then the commands that run it.
func newDriverStdout(name string, p manifest.Preset) string {
	rows := [][2]string{{name + "/murmur.yaml", fmt.Sprintf("capsule %s@%s, %s (%s at %s)", name, newVersion, p.Label, p.Model, p.Endpoint)}}
	if p.KeyEnv != "" {
		rows = append(rows, [2]string{name + "/.env.example", fmt.Sprintf("names %s, the key the driver reads", p.KeyEnv)})
	}
	var next []string
	if p.Setup != "" {
		next = append(next, p.Setup)
	}
	if p.KeyEnv != "" {
		next = append(next, fmt.Sprintf("cp %[1]s/.env.example %[1]s/.env    # then set %[2]s in %[1]s/.env", name, p.KeyEnv))
	}
	next = append(next, fmt.Sprintf("mur run --capsule %s --task \"list the files\"", name))
	return scaffoldReport(fmt.Sprintf("Scaffolded capsule '%s' in ./%s", name, name), rows, next)
}

// scaffoldReport is a scaffold's stdout: the title, a padded row per file,
// a blank line, then "Next:" and the commands.
func scaffoldReport(title string, rows [][2]string, next []string) string {
	w := 0
	for _, r := range rows {
		w = max(w, len(r[0]))
	}
	var b strings.Builder
	b.WriteString(title + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s   %s\n", w, r[0], r[1])
	}
	b.WriteString("\nNext:\n")
	for _, n := range next {
		b.WriteString("  " + n + "\n")
	}
	return b.String()
}

// scaffoldCapsule writes ./<name>/ through ./.<name>.tmp-<id> and a rename,
// so an error leaves nothing behind (CLI-8), on the preset's driver; the
// manifest it writes must load.
func scaffoldCapsule(name string, p manifest.Preset) error {
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
		{".gitignore", manifest.GitIgnore},
	}
	if p.Kind != manifest.KindScripted {
		files[0].text = fmt.Sprintf(newManifestDriver, name, newVersion, p.DriverYAML("  ", ""))
		files[1] = struct{ name, text string }{".env.example", p.EnvExample()}
		if p.KeyEnv == "" {
			files = files[:1:1]
			files = append(files, struct{ name, text string }{".gitignore", manifest.GitIgnore})
		}
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(tmp, f.name), []byte(f.text), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	if _, _, err := manifest.LoadArtifact(tmp); err != nil {
		return fmt.Errorf("the scaffolded manifest does not load: %w", err)
	}
	if _, err := os.Lstat(name); err == nil { // created meanwhile
		return diag.NewExists(name)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("create ./%s: %w", name, err)
	}
	return nil
}
