package capsule

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWaitTaskEndingCLI13 reads task endings from a trace that grows: a
// half-written task_end counts once its line is complete, a queued task's
// task_canceled ends its wait, and an ending that is not there does not.
func TestWaitTaskEndingCLI13(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(`{"event_type":"task_start","task_id":"tsk_a"}`+"\n"+`{"event_type":"task_end","task_id":"tsk_a"`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if waitTaskEnding(ctx, path, "tsk_a", 3*stopPollEvery) {
		t.Error("waitTaskEnding took a half-written task_end")
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("}\n" + `{"event_type":"task_canceled","task_id":"tsk_q","phase":"queued"}` + "\n")
	f.Close()
	if !waitTaskEnding(ctx, path, "tsk_a", time.Minute) {
		t.Error("waitTaskEnding missed a task_end completed later")
	}
	if !waitTaskEnding(ctx, path, "tsk_q", time.Minute) {
		t.Error("waitTaskEnding missed a queued task's task_canceled")
	}
	if waitTaskEnding(ctx, path, "tsk_never", 3*stopPollEvery) {
		t.Error("waitTaskEnding found an ending that is not there")
	}
}
