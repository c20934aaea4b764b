// Package confine is the trampoline every confined tool process starts as:
// a re-exec of the runtime's own binary ("/proc/self/exe __confine <fd>")
// that confines itself on one thread and then execs the tool's command, so
// that the command is confined before it runs a single instruction of its
// own and no thread of the runtime ever enters its Landlock domain.
//
// The package does its work in its init, when the process was started as a
// trampoline, and imports the standard library only: a package's init runs
// once its imports are initialized, so the trampoline execs the command
// before the other two hundred package inits of a mur binary run
// (BENCHMARKS.md). Any binary that imports runtime/proc (mur, and every test
// binary whose tests start confined commands) can therefore be its own
// trampoline.
package confine

// Command is the hidden first argument that makes a binary a trampoline.
// Nobody types it.
const Command = "__confine"

// Failed is the exit code of a trampoline whose step failed.
const Failed = 127
