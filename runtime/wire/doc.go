// Package wire holds every line mur processes exchange with each other, one
// type per line with its marshal and its parse: the readiness line a capsule
// prints (Ready), a formation member's channel lines (Credentials,
// Addresses), the lifeline's orderly end (OrderlyEnd), the spawner's hello on
// a delegated child's lifeline (SpawnerHello) and a delegation's completion
// (Completion). The writer, every reader and the tests use these and nothing
// else, so a line has one shape in the tree. Parsing decodes and checks the
// discriminator; what a reader then requires of the values (ids, tokens,
// depths) stays with the reader. The standard library only. See
// formations.md §17.
package wire

import "encoding/json"

// line is v as compact JSON and a '\n'. Every type here holds strings, ints,
// bools, slices and maps of them only, so marshalling cannot fail.
func line(v any) []byte {
	b, _ := json.Marshal(v)
	return append(b, '\n')
}
