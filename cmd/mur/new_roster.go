package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/launcher"
	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/driver/scripted"
	"github.com/murmur-go/mur/runtime/manifest"
)

const newRosterUsage = `Usage: mur new --roster <name> [--driver scripted|openai|anthropic|ollama]

Scaffolds ./<name>: a roster.yaml whose entry member lead (<name>-lead@0.1.0)
hands its task to worker (<name>-worker@0.1.0), both on the scripted driver,
so the formation runs with no model or key once both are installed; with
--driver openai, anthropic or ollama both run on that provider as written,
and a .env.example names the key they read from <name>/.env.`

// newRoster runs `mur new --roster <name>` (formations.md FCLI-9); args are the
// arguments after "new".
func newRoster(ctx context.Context, env *Env, args []string) int {
	var name string
	var names int
	drv := "scripted"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--driver" || a == "-driver":
			if i+1 >= len(args) {
				return usageError(env, "new", "flag needs an argument: --driver")
			}
			i++
			drv = args[i]
		case strings.HasPrefix(a, "--driver=") || strings.HasPrefix(a, "-driver="):
			_, drv, _ = strings.Cut(a, "=")
		case a == "--roster" || a == "-roster":
		case a == "-h" || a == "--help":
			fmt.Fprintln(env.Stdout, newRosterUsage)
			return 0
		case strings.HasPrefix(a, "--roster="):
			name, names = strings.TrimPrefix(a, "--roster="), names+1
		case strings.HasPrefix(a, "-"):
			return usageError(env, "new", fmt.Sprintf("%s cannot be used with --roster", strings.SplitN(a, "=", 2)[0]))
		default:
			name, names = a, names+1
		}
	}
	preset, err := driverFlag(drv)
	if err != nil {
		return fail(env, "new", err)
	}
	switch {
	case names == 0:
		return usageError(env, "new", "--roster needs a formation name")
	case names > 1:
		return usageError(env, "new", "mur new --roster takes one name and no task description")
	}
	for _, n := range []string{name, name + "-lead", name + "-worker"} {
		if why := manifest.NameProblem(n); why != "" {
			return fail(env, "new", diag.NewName(n, why))
		}
	}
	if _, err := os.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
		return fail(env, "new", diag.NewExists(name))
	}
	if err := writeScaffold(name, preset); err != nil {
		return fail(env, "new", err)
	}
	fmt.Fprint(env.Stdout, launcher.ScaffoldSummary(name, preset))
	return 0
}

// writeScaffold renders the templates into ./.<name>.tmp-<id>, parses every
// file there, and renames the directory to ./<name>; on failure it removes
// the temp directory and writes nothing.
func writeScaffold(name string, preset manifest.Preset) (retErr error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := fmt.Sprintf(".%s.tmp-%s", name, hex.EncodeToString(b[:]))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return err
	}
	defer func() {
		if retErr != nil {
			os.RemoveAll(tmp)
		}
	}()
	for _, f := range launcher.Scaffold(name, preset) {
		p := filepath.Join(tmp, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(f.Text), 0o644); err != nil {
			return err
		}
	}
	if _, err := roster.Load(filepath.Join(tmp, roster.FileName)); err != nil {
		return fmt.Errorf("the scaffolded roster does not load: %w", err)
	}
	for _, member := range []string{"lead", "worker"} {
		dir := filepath.Join(tmp, member)
		if _, _, err := manifest.LoadArtifact(dir); err != nil {
			return fmt.Errorf("the scaffolded %s manifest does not load: %w", member, err)
		}
		if preset.Kind != manifest.KindScripted {
			continue
		}
		if _, err := scripted.Load(filepath.Join(dir, "script.yaml")); err != nil {
			return fmt.Errorf("the scaffolded %s script does not load: %w", member, err)
		}
	}
	if _, err := os.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
		return diag.NewExists(name)
	}
	return os.Rename(tmp, name)
}
