// Command mur is the mur CLI: it runs capsules and formations, installs and
// lists artifacts, reads traces and checks doors. `mur <command> --help`
// describes each command.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is this build's version; `-ldflags "-X main.version=…"` sets it.
var version = "0.1.0"

// commands lists every subcommand, in the order `mur --help` shows them.
// Each command lives in its own file.
var commands = []*command{
	cmdRun,
	cmdInstall,
	cmdList,
	cmdNew,
	cmdDoctor,
	cmdTrace,
	cmdToken,
	cmdPs,
	cmdStop,
	cmdConformance,
	cmdVersion,
}

func main() {
	os.Exit(runMain(os.Args[1:], &Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
	}))
}

// runMain dispatches args to a command and returns the process exit code.
func runMain(args []string, env *Env) int {
	if len(args) == 0 {
		printTopUsage(env.Stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printTopUsage(env.Stdout)
		return 0
	}
	if args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "mur %s\n", version)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			// Commands that handle signals themselves (mur run) replace this context.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return c.run(ctx, env, args[1:])
		}
	}
	fmt.Fprintf(env.Stderr, "error: unknown command '%s'\nrun 'mur --help' for usage\n", args[0])
	return 2
}

func printTopUsage(w io.Writer) {
	fmt.Fprintln(w, "mur runs A2A capsules and formations of them.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: mur <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'mur <command> --help' for a command's flags.")
}
