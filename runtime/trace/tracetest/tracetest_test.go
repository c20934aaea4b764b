package tracetest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

func TestReadOfTypeLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := "hi\n"
	w, err := trace.Open(filepath.Join(dir, "trace.jsonl"), "ses_x", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []trace.Record{trace.SessionStart{CapsuleName: "c"}, trace.TaskStart{TaskID: "tsk_a"},
		trace.Inference{TaskID: "tsk_a"}, trace.ToolCall{TaskID: "tsk_a", ToolName: "bash"},
		trace.ToolCall{TaskID: "tsk_a", ToolName: "grep"}, trace.ToolCall{TaskID: "tsk_a", ToolName: "bash", Output: &out},
		trace.SessionEnd{ExitStatus: "ok"}} {
		if _, err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := Records(t, dir)
	if got := strings.Join(Types(lines), ","); got != "session_start,task_start,inference,tool_call,tool_call,tool_call,session_end" {
		t.Errorf("Types = %s", got)
	}
	calls := OfType[trace.ToolCall](t, lines)
	if len(calls) != 3 || calls[0].ToolName != "bash" || calls[1].ToolName != "grep" {
		t.Errorf("OfType[ToolCall] = %+v", calls)
	}
	turn := Lines[trace.Inference](lines)[0].EventID
	for _, l := range Lines[trace.ToolCall](lines) {
		if l.ParentID == nil || *l.ParentID != turn {
			t.Errorf("tool_call parent = %v, want the turn %s", l.ParentID, turn)
		}
	}
	if got := ToolOutputs(t, lines, "bash"); len(got) != 2 || got[0] != "" || got[1] != "hi\n" {
		t.Errorf("ToolOutputs(bash) = %q, want [\"\" \"hi\\n\"]", got)
	}
	if se := OfType[trace.SessionEnd](t, lines); len(se) != 1 || se[0].ExitStatus != "ok" {
		t.Errorf("OfType[SessionEnd] = %+v", se)
	}
}
