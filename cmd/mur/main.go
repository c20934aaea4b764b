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

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/harness/bridge"
	"github.com/murmur-go/mur/runtime/proc"
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
	cmdConversation,
	cmdView,
	cmdToken,
	cmdPs,
	cmdStop,
	cmdConformance,
	cmdCard,
	cmdVersion,
}

func main() {
	proc.Undumpable() // no tool reads this process's environment or memory
	env := &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		ColourStdout: wantsColour(os.Stdout, os.Getenv), StderrTerminal: isTerminal(os.Stderr) && os.Getenv("TERM") != "dumb"}
	if wantsColour(os.Stderr, os.Getenv) {
		env.Stderr = colourWriter{os.Stderr} // errors red, warnings yellow
	}
	os.Exit(runMain(os.Args[1:], env))
}

// runMain dispatches args to a command and returns the process exit code.
func runMain(args []string, env *Env) int {
	if len(args) == 0 {
		printTopUsage(env.Stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" && len(args) == 1 {
		printTopUsage(env.Stdout)
		return 0
	}
	if args[0] == "help" { // `mur help <command> [<sub>]` is `mur <command> [<sub>] --help`
		if findCommand(args[1]) == nil {
			fmt.Fprintf(env.Stderr, "error: %s\nrun 'mur --help' for usage\n", unknownCommand(args[1]))
			return 2
		}
		args = append(args[1:len(args):len(args)], "--help")
	}
	if args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "mur %s\n", version)
		return 0
	}
	if args[0] == bridge.ProxyCommand {
		return runProxy(env, args[1:])
	}
	if args[0] == kubeMemberCommand {
		return runKubeMember(env, args[1:])
	}
	if c := findCommand(args[0]); c != nil {
		// Commands that handle signals themselves (mur run) replace this context.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return c.run(ctx, env, args[1:])
	}
	fmt.Fprintf(env.Stderr, "error: %s\nrun 'mur --help' for usage\n", unknownCommand(args[0]))
	return 2
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// unknownCommand is the usage error's text for an unknown command, naming
// the nearest one: "unknown command 'isntall'; did you mean 'install'?".
func unknownCommand(name string) string {
	names := make([]string, 0, len(commands)+1)
	for _, c := range commands {
		names = append(names, c.name)
	}
	return unknownWord("command", name, append(names, "help"))
}

// unknownWord is "unknown <what> '<name>'[; did you mean '<near>'?]".
func unknownWord(what, name string, known []string) string {
	msg := fmt.Sprintf("unknown %s '%s'", what, name)
	if near := diag.Nearest(name, known); near != "" {
		msg += fmt.Sprintf("; did you mean '%s'?", near)
	}
	return msg
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
	fmt.Fprintln(w, "Run 'mur <command> --help' or 'mur help <command>' for a command's flags.")
}

// runProxy is the hidden `mur __mcp-proxy <file>`: the stdio MCP server a
// harness starts (codex, PROC-7), forwarding to the session's bridge with
// the bearer in file. It exits 0 at EOF on stdin.
func runProxy(env *Env, args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(env.Stderr, "usage: mur %s <file>\n", bridge.ProxyCommand)
		return 2
	}
	if err := bridge.Proxy(context.Background(), args[0], env.Stdin, env.Stdout); err != nil {
		fmt.Fprintf(env.Stderr, "mur %s: %v\n", bridge.ProxyCommand, err)
		return 1
	}
	return 0
}
