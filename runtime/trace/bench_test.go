package trace

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// BenchmarkWriteToolCall writes the whole tool_call line the dispatcher
// writes (BENCHMARKS.md compares it with the string-keyed writer it replaced).
func BenchmarkWriteToolCall(b *testing.B) {
	w, err := Open(filepath.Join(b.TempDir(), "trace.jsonl"), "ses_x", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Write(SessionStart{}); err != nil {
		b.Fatal(err)
	}
	id := "call_1"
	rec := ToolCall{Turn: 1, TaskID: "tsk_a", ToolName: "bash", ToolCallID: &id, Input: json.RawMessage(`{"command":"ls -1"}`),
		InputBytes: 20, OutputBytes: 120, DurationMS: 38, Status: "ok", Summary: "bash: exit 0"}
	for b.Loop() {
		if _, err := w.Write(rec); err != nil {
			b.Fatal(err)
		}
	}
}
