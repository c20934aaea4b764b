package trace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/trace"
)

// TestTail follows a trace as it grows: a half-written last line waits for
// its rest, a malformed line is reported and passed, and the tail ends with
// its context.
func TestTail(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(`{"event_type":"task_start","task_id":"tsk_a"}`+"\n"+`{"event_type":"task_end"`), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	for l, err := range trace.Tail(ctx, f, time.Millisecond) {
		var me *trace.MalformedError
		switch {
		case errors.As(err, &me):
			got = append(got, "malformed")
			if me.Line != 3 || l.Num != 3 {
				t.Errorf("malformed line %d (Num %d), want 3", me.Line, l.Num)
			}
			if _, err := w.WriteString(`{"event_type":"session_end"}` + "\n"); err != nil {
				t.Fatal(err)
			}
			continue
		case err != nil:
			t.Fatalf("tail: %v", err)
		}
		got = append(got, l.EventType)
		switch l.EventType {
		case "task_start": // the second line is half written: complete it, then a bad one
			if _, err := w.WriteString(`,"task_id":"tsk_a"}` + "\n" + "not json\n"); err != nil {
				t.Fatal(err)
			}
		case "session_end":
			cancel()
		}
	}
	want := []string{"task_start", "task_end", "malformed", "session_end"}
	if len(got) != len(want) {
		t.Fatalf("lines = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lines = %v, want %v", got, want)
		}
	}
}
