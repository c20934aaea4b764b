package tracetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// ToolOutputs are the contents the model got for each call of tool, in
// order (tool_call.output under trace.capture: content; "" where none).
func ToolOutputs(t testing.TB, lines []trace.Line, tool string) []string {
	t.Helper()
	var out []string
	for _, r := range OfType[trace.ToolCall](t, lines) {
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

// Continuation returns the user message the inference right after the
// n-th task_continued of the records directory dir sent (from the blobs
// trace.capture: content writes): the continuation exactly as the next
// inference saw it (RND-2). It fails the test when there is none.
func Continuation(t testing.TB, dir string, n int) string {
	t.Helper()
	recs := Records(t, dir)
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
