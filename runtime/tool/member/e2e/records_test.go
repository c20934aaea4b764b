package e2e

import (
	"encoding/json"
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
// order (tool_call.output under trace.capture: content).
func toolOutputs(t testing.TB, recs []trace.Line, tool string) []string {
	t.Helper()
	var out []string
	for _, r := range of[trace.ToolCall](t, recs) {
		if r.ToolName != tool {
			continue
		}
		s := ""
		if r.Output != nil {
			s = *r.Output
		}
		out = append(out, s)
	}
	return out
}

// continuation returns the user message the inference right after the
// n-th task_continued sent (from the blobs trace.capture: content writes):
// the continuation exactly as the next inference saw it (RND-2).
func continuation(t testing.TB, dir string, n int) string {
	t.Helper()
	recs := records(t, dir)
	seen := 0
	for i, r := range recs {
		if r.EventType != "task_continued" {
			continue
		}
		if seen++; seen < n {
			continue
		}
		for _, next := range recs[i+1:] {
			inf, err := trace.As[trace.Inference](next)
			if err != nil || inf.Capture == nil {
				continue
			}
			shas := inf.MessageSHAs
			b, err := os.ReadFile(filepath.Join(dir, "blobs", shas[len(shas)-1]))
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Role   string `json:"role"`
				Blocks []struct {
					Text string `json:"text"`
				} `json:"blocks"`
			}
			if err := json.Unmarshal(b, &m); err != nil || m.Role != "user" || len(m.Blocks) != 1 {
				t.Fatalf("continuation message %s: %v", b, err)
			}
			return m.Blocks[0].Text
		}
	}
	t.Fatalf("no inference after task_continued %d in %s", n, dir)
	return ""
}

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
