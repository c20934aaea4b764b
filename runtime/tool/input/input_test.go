package input

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/tool"
)

// fakeDoor is a Door with func fields (STYLE.md §9).
type fakeDoor struct {
	ask      func(prompt string) bool
	wait     func(ctx context.Context) (Reply, error)
	withdraw func() (Reply, bool)
	asked    []string
}

func (d *fakeDoor) Ask(p string) bool {
	d.asked = append(d.asked, p)
	return d.ask == nil || d.ask(p)
}

func (d *fakeDoor) Wait(ctx context.Context) (Reply, error) { return d.wait(ctx) }

func (d *fakeDoor) Withdraw() (Reply, bool) {
	if d.withdraw == nil {
		return Reply{}, false
	}
	return d.withdraw()
}

// blocked waits until ctx ends.
func blocked(ctx context.Context) (Reply, error) {
	<-ctx.Done()
	return Reply{}, ctx.Err()
}

func call(t *testing.T, timeout time.Duration, d *fakeDoor, ctx context.Context, input string) (tool.Result, *tool.TaskState, *string) {
	t.Helper()
	tl, err := New(Config{Ref: "murmur-tool-request-input", Version: "1.0.0", Timeout: timeout,
		Door: func(*tool.CallContext) Door { return d }})
	if err != nil {
		t.Fatal(err)
	}
	ts := tool.NewTaskState(tool.TaskInfo{ID: "tsk_1"}, nil)
	phase := ""
	res := tl.Call(ctx, &tool.CallContext{TaskID: "tsk_1", Task: ts, SetPhase: func(p string) { phase = p }}, json.RawMessage(input))
	return res, ts, &phase
}

// TestSpec_INP3 pins the schema and description and the staged manifest's
// declared version (INP-1).
func TestSpec_INP3(t *testing.T) {
	tl, err := New(Config{Ref: "murmur/murmur-tool-request-input", Version: "0.3.0", Door: func(*tool.CallContext) Door { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	s := tl.Spec()
	if s.Name != "murmur-tool-request-input" || s.Kind != tool.KindNative || tl.FullName() != "murmur/murmur-tool-request-input" || tl.Required() != nil {
		t.Errorf("spec = %+v, full name %q, required %v", s, tl.FullName(), tl.Required())
	}
	golden.Check(t, "spec", s.Description+"\n"+string(s.InputSchema)+"\n")
	if !strings.Contains(string(tl.Manifest()), "version: 0.3.0\n") {
		t.Errorf("staged manifest = %s, want the declared version", tl.Manifest())
	}
	if _, err := New(Config{}); err == nil {
		t.Error("New without a Door: no error")
	}
}

// TestReplyWinsTheTimeout: a reply the door took as the time ran out is the
// call's result, not a timeout (INP-5, INP-7).
func TestReplyWinsTheTimeout(t *testing.T) {
	d := &fakeDoor{wait: blocked, withdraw: func() (Reply, bool) { return Reply{Text: "just in time"}, true }}
	res, ts, phase := call(t, time.Millisecond, d, context.Background(), `{"prompt":"q"}`)
	if res.Status != tool.Passed || res.Data != "just in time" || res.Summary != summaryReplied {
		t.Errorf("result = %+v", res)
	}
	if _, failed := ts.Failed(); failed || *phase != "turn" {
		t.Errorf("failed %v, phase %q: want neither after a reply", failed, *phase)
	}
}

// TestTimeout_INP7: the call fails and marks the attempt failed.
func TestTimeout_INP7(t *testing.T) {
	d := &fakeDoor{wait: blocked}
	res, ts, _ := call(t, time.Second, d, context.Background(), `{"prompt":"q"}`)
	if res.Status != tool.Failed || res.Data != "no reply arrived within 1s; this task ends" || res.Summary != summaryTimedOut {
		t.Errorf("result = %+v", res)
	}
	f, ok := ts.Failed()
	if !ok || f != (tool.Failure{Cause: "input_timeout", Reason: "input-timeout", Status: "input-timeout"}) {
		t.Errorf("failure = %+v, %v", f, ok)
	}
}

// TestCancel_INP8: the task's cancel ends the wait; the phase stays input.
func TestCancel_INP8(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d := &fakeDoor{wait: func(c context.Context) (Reply, error) { cancel(); return blocked(c) }}
	res, ts, phase := call(t, time.Hour, d, ctx, `{"prompt":"q"}`)
	if res.Summary != summaryCanceled || !res.IsError() || *phase != "input" {
		t.Errorf("result = %+v, phase %q", res, *phase)
	}
	if _, failed := ts.Failed(); failed {
		t.Error("a cancel marked the attempt failed")
	}
	d2 := &fakeDoor{ask: func(string) bool { return false }, wait: blocked}
	if res, _, phase := call(t, 0, d2, context.Background(), `{"prompt":"q"}`); res.Summary != summaryCanceled || *phase != "turn" {
		t.Errorf("a question the task could not take = %+v, phase %q", res, *phase)
	}
}

// TestPromptCut_TOOL10: the prompt is cut at 64 KiB before it is asked.
func TestPromptCut_TOOL10(t *testing.T) {
	d := &fakeDoor{wait: func(context.Context) (Reply, error) { return Reply{Text: "ok"}, nil }}
	big, _ := json.Marshal(map[string]string{"prompt": strings.Repeat("é", 40000)})
	call(t, 0, d, context.Background(), string(big))
	if len(d.asked) != 1 || !strings.HasSuffix(d.asked[0], "\n[output cut at 64 KiB]") || len(d.asked[0]) > tool.CutLimit+30 {
		t.Errorf("asked %d bytes ending %q", len(d.asked[0]), d.asked[0][len(d.asked[0])-30:])
	}
}
