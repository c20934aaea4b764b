package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/murmur-go/mur/internal/diag"
	"github.com/murmur-go/mur/launcher"
	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/records"
)

// doctorFormationDir runs `mur doctor` in a formation directory (formations.md
// DOC-1, DOC-2): dir holds roster.yaml and no murmur.yaml. It prints the whole
// report and returns the exit code.
func doctorFormationDir(ctx context.Context, env *Env, dir string) int {
	fmt.Fprintf(env.Stdout, "No murmur.yaml in %s: checking its roster.yaml. Run mur doctor in a member's source directory to check that member's artifacts.\n\n", dir)
	errs, warns, errFixes, warnFixes := doctorRosterBlock(ctx, env, dir)
	fmt.Fprintln(env.Stdout)
	switch {
	case errs > 0:
		fmt.Fprintln(env.Stdout, "0 checks passed, 1 error found.")
	case warns > 0:
		fmt.Fprintf(env.Stdout, "0 checks passed, 0 errors found, %d %s.\n", warns, rosterPlural(warns, "warning"))
	default:
		fmt.Fprintln(env.Stdout, "All checks passed.")
		return 0
	}
	fmt.Fprintln(env.Stdout)
	for _, h := range append(errFixes, warnFixes...) {
		fmt.Fprintf(env.Stdout, "Fix: %s\n", h)
	}
	if errs > 0 {
		return 1
	}
	return 0
}

// doctorRosterBlock prints the Roster block for the roster.yaml in dir (DOC-1,
// DOC-3) and returns what the tally counts: errors (0 or 1), warnings, and
// the Fix: hints in order. A refused roster's code and hint also go to
// stderr. It launches and writes nothing.
func doctorRosterBlock(ctx context.Context, env *Env, dir string) (errs, warns int, errFixes, warnFixes []string) {
	path := filepath.Join(dir, roster.FileName)
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	home, err := records.Home(env.Getenv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "error: %s\n", err)
		return 1, 0, nil, nil
	}
	f, ws, err := roster.Admit(path, launcher.NewStoreResolver(filepath.Dir(path), home))
	if err != nil {
		d, ok := diag.As(err)
		if !ok {
			d = diag.RosUnreadable(path, err.Error())
		}
		fmt.Fprint(env.Stdout, launcher.RosterBlock(path, nil, nil, d))
		fmt.Fprint(env.Stderr, d.Render())
		return 1, 0, []string{d.Hint}, nil
	}
	fmt.Fprint(env.Stdout, launcher.RosterBlock(path, f, ws, nil))
	for _, w := range ws {
		warnFixes = append(warnFixes, w.Hint)
	}
	return 0, len(ws), nil, warnFixes
}

// rosterPlural is word with an "s" unless n is 1 (capsule.md CLI-14).
func rosterPlural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
