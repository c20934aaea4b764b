// Package sealed is the trampoline's sealed stage: in a process started as
// a sealed trampoline, its init (which runs after package confine's, with
// the rest of the standard library at hand) builds the composed root,
// confines the process and runs the command as the init of its namespaces.
// Any binary that can be a trampoline imports it (runtime/proc does).
package sealed
