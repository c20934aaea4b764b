// Package confine is the trampoline every confined tool process starts as:
// a re-exec of the runtime's own binary ("/proc/self/exe __confine <fd>")
// that confines itself on one thread and then execs the tool's command, so
// that the command is confined before it runs a single instruction of its
// own and no thread of the runtime ever enters its Landlock domain.
//
// The package does its work in its init, when the process was started as a
// trampoline, and imports runtime, syscall and unsafe only: packages are
// initialized in import-path order once their imports are, so with nothing
// else to wait for this one runs after about fifteen package inits instead
// of the ~130 (archive/…, encoding/…, github.com/[a-m]…) that sort before it
// and that an import of os or encoding/json would let run first
// (BENCHMARKS.md). Hence the spec's own encoding, read with the syscall
// package, and argv read from /proc/self/cmdline. A sealed start goes on in
// package confine/sealed, whose init runs later with the standard library
// at hand. Any binary that imports runtime/proc (mur, and every test binary
// whose tests start confined commands) can therefore be its own trampoline.
package confine

// Command is the hidden first argument that makes a binary a trampoline.
// Nobody types it.
const Command = "__confine"

// Failed is the exit code of a trampoline whose step failed.
const Failed = 127
