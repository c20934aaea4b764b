// Package launcher is `mur run --roster` (formations.md §4–§13): it admits a
// roster (launcher/roster), mints the formation id, key and tokens, makes the
// formation directories, starts every peer at once by re-exec'ing mur with
// its channel and lifeline on fds 3 and 4, waits for each door to answer as
// the session it reported, hands out callee addresses, starts the entry
// member last, and ends the formation by closing lifelines, reaping every
// member, then applying retention. It also renders `mur doctor`'s Roster
// block and scaffolds `mur new --roster`.
//
// # Example
//
//	code := launcher.Run(ctx, launcher.Config{
//		RosterPath: path, Resolver: res, Home: home, Self: exe, Cwd: cwd,
//		Environ: os.Environ(), Task: &task, JSON: true,
//		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Signals: sigs,
//	})
//
// # Goroutines and processes
//
// Run owns everything it starts: per peer one goroutine waits for the
// process, two forward its stdout and stderr (prefixed "[<member>] ", LIFE-6)
// and one awaits its readiness; all are waited for before Run returns. Peers
// lead their own process groups; the entry shares the launcher's. Teardown
// closes lifelines (never SIGTERM), waits TeardownGrace, SIGKILLs what is
// left and always reaps.
package launcher
