package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/murmur-go/mur/runtime/diag"
)

// Env is what a command reads and writes besides its arguments, so tests can
// run commands in-process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// ColourStdout is set when stdout is a terminal that wants colour
	// (colour.go); human text goes through Env.out then. Stderr is wrapped
	// in a colourWriter by main itself.
	ColourStdout bool
	// StderrTerminal is set when stderr is a terminal that can redraw a
	// line (not TERM=dumb): mur run shows its live status there (status.go).
	StderrTerminal bool
}

// command is one `mur` subcommand.
type command struct {
	name    string
	summary string // one line for `mur --help`
	run     func(ctx context.Context, env *Env, args []string) int
}

// errUsage marks a usage error: exit 2 (spec README.md "Output contract").
type errUsage struct{ msg string }

func (e *errUsage) Error() string { return e.msg }

// usagef returns a usage error with a formatted message.
func usagef(format string, args ...any) error { return &errUsage{msg: fmt.Sprintf(format, args...)} }

// parseFlags parses args with fs, answering --help/-h with usage on stdout.
// done is true when the caller must return code at once (help printed, or a
// usage error reported).
func parseFlags(env *Env, name, usage string, fs *flag.FlagSet, args []string) (rest []string, code int, done bool) {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(env.Stdout, usage, fs)
			return nil, 0, true
		}
		return nil, usageError(env, name, flagErrorText(err, fs)), true
	}
	return fs.Args(), 0, false
}

// flagErrorText turns the flag package's error into the "error: <what>" text;
// an unknown flag names the nearest of fs's visible flags.
func flagErrorText(err error, fs *flag.FlagSet) string {
	s := err.Error()
	if rest, ok := strings.CutPrefix(s, "flag provided but not defined: "); ok {
		var known []string
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.HasPrefix(f.Usage, "(hidden)") {
				known = append(known, f.Name)
			}
		})
		return unknownFlag(strings.TrimLeft(rest, "-"), known)
	}
	return s
}

// unknownFlag is the usage error's text for an unknown flag, as written
// without its dashes: "unknown flag --al; did you mean --all?" when one of
// known is near it.
func unknownFlag(name string, known []string) string {
	msg := "unknown flag " + dashed(name)
	if near := diag.Nearest(name, known); near != "" {
		msg += "; did you mean " + dashed(near) + "?"
	}
	return msg
}

// dashed spells a flag name the way mur's help does: -v, --verbose.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// printUsage writes a command's usage (starting "Usage: mur <name> …") and its
// flags; a flag whose usage starts "(hidden)" is left out.
func printUsage(w io.Writer, usage string, fs *flag.FlagSet) {
	fmt.Fprintln(w, strings.TrimRight(usage, "\n"))
	if fs == nil {
		return
	}
	var any bool
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, "(hidden)") {
			return
		}
		if !any {
			fmt.Fprintln(w, "\nFlags:")
			any = true
		}
		name := "--" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name
		}
		_, text := flag.UnquoteUsage(f) // a `word` in the usage names the argument; print it bare
		fmt.Fprintf(w, "  %-28s %s\n", name+flagArg(f), text)
	})
}

func flagArg(f *flag.Flag) string {
	if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
		return ""
	}
	name, _ := flag.UnquoteUsage(f)
	if name == "" {
		name = "value"
	}
	return " <" + name + ">"
}

// usageError prints a usage error and returns exit code 2.
func usageError(env *Env, cmd, what string) int {
	fmt.Fprintf(env.Stderr, "error: %s\nrun 'mur %s --help' for usage\n", what, cmd)
	return 2
}

// fail reports err and returns its exit code: a diagnostic prints in its
// error[CODE] form and exits 1; a usage error exits 2; anything else prints
// "error: <err>" and exits 1.
func fail(env *Env, cmd string, err error) int {
	var ue *errUsage
	if errors.As(err, &ue) {
		return usageError(env, cmd, ue.msg)
	}
	if d, ok := diag.As(err); ok {
		fmt.Fprint(env.Stderr, d.Render())
		return 1
	}
	fmt.Fprintf(env.Stderr, "error: %s\n", err)
	return 1
}
