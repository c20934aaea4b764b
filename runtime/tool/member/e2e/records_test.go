package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// records reads a session's trace.jsonl, every line checked against its
// record type (runtime/trace/tracetest).
var records = tracetest.Records

// of decodes a trace's records of type T, in file order.
func of[T trace.Record](t testing.TB, recs []trace.Line) []T {
	t.Helper()
	return tracetest.OfType[T](t, recs)
}

// toolOutputs are the contents the model got for each call of tool, in
// order (tracetest.ToolOutputs).
var toolOutputs = tracetest.ToolOutputs

// continuation is the continuation the inference after the n-th
// task_continued saw (tracetest.Continuation, RND-2).
var continuation = tracetest.Continuation

var ids = regexp.MustCompile(`(mcl|tsk)_[0-9a-f]{32}`)

// normalise replaces call and task ids by <mcl_1>, <tsk_1> … in order of
// first appearance, so texts compare with literal expectations.
func normalise(s string) string {
	seen := map[string]string{}
	n := map[string]int{}
	return ids.ReplaceAllStringFunc(s, func(id string) string {
		if r, ok := seen[id]; ok {
			return r
		}
		kind := id[:3]
		n[kind]++
		seen[id] = fmt.Sprintf("<%s_%d>", kind, n[kind])
		return seen[id]
	})
}

// normaliseAll normalises texts together, so one id reads the same in each.
func normaliseAll(texts ...string) []string {
	const sep = "\x00"
	return strings.Split(normalise(strings.Join(texts, sep)), sep)
}

// result reads a session's out/result.txt.
func result(t testing.TB, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "out", "result.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sessionDir returns the records directory of the one session under a
// member's records group (a peer's workdir), for members reached by a peer.
func sessionDir(t testing.TB, group string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(group, "ses_*"))
	if len(m) != 1 {
		t.Fatalf("sessions under %s: %v", group, m)
	}
	return m[0]
}
