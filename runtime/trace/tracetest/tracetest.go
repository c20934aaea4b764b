// Package tracetest reads trace.jsonl files in tests, into runtime/trace's
// record types. Every line read must be byte for byte what trace.Writer
// writes for its record (trace.Line.Check), so each test that reads a trace
// also proves the records it saw have their types, fields and order.
//
// # Example
//
//	lines := tracetest.Records(t, recordsDir)
//	for _, c := range tracetest.OfType[trace.ToolCall](t, lines) {
//		if c.Status != "ok" { … }
//	}
package tracetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// Read reads the trace at path, failing t on a line that is not a record or
// not exactly what the Writer writes for it.
func Read(t testing.TB, path string) []trace.Line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []trace.Line
	for l, err := range trace.Lines(f) {
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := l.Check(); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	return out
}

// Records reads the trace.jsonl of the records directory dir (Read).
func Records(t testing.TB, dir string) []trace.Line {
	t.Helper()
	return Read(t, filepath.Join(dir, "trace.jsonl"))
}

// OfType decodes the lines of T's record type, in file order.
func OfType[T trace.Record](t testing.TB, lines []trace.Line) []T {
	t.Helper()
	var out []T
	for _, l := range Lines[T](lines) {
		r, err := trace.As[T](l)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// Lines keeps the lines of T's record type, for their headers (event_id,
// parent_id).
func Lines[T trace.Record](lines []trace.Line) []trace.Line {
	var zero T
	var out []trace.Line
	for _, l := range lines {
		if l.EventType == zero.EventType() {
			out = append(out, l)
		}
	}
	return out
}

// Types lists the lines' event types, in order.
func Types(lines []trace.Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.EventType
	}
	return out
}
