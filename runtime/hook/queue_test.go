package hook

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/trace"
)

// recorder collects the records a Set writes.
type recorder struct {
	mu   sync.Mutex
	recs []trace.HookDispatchError
}

func (r *recorder) write(rec trace.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec.(trace.HookDispatchError))
}

func (r *recorder) arms() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for _, e := range r.recs {
		out[e.Event+"/"+e.Arm]++
	}
	return out
}

// TestAsyncQueueOverflowAndDrain: an async hook stuck on its first event
// has a queue of QueueDepth; under on_overflow drop every event past it is
// dropped and recorded (queue-overflow), dispatch never waiting; at Close
// the drain gives up after its budget (drain/timeout) and the process is
// ended.
func TestAsyncQueueOverflowAndDrain(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s := NewSet([]Spec{{Name: "slow", Command: exe, Dir: t.TempDir(), Env: []string{helperEnv + "=stuck"},
		ExecutionMode: "async", CommitPolicy: ArmNone, OnOverflow: "drop"}}, nil, rec.write)
	s.drain = 200 * time.Millisecond
	const events = QueueDepth + 50
	for range events {
		s.Observe(context.Background(), OnInference, map[string]any{"turn": 1})
	}
	// One event is in flight or about to be; the queue holds QueueDepth; the
	// rest were dropped, each recorded.
	if n := rec.arms()[OnInference+"/queue-overflow"]; n < events-QueueDepth-1 || n > events-QueueDepth {
		t.Errorf("queue-overflow records = %d, want %d or %d", n, events-QueueDepth-1, events-QueueDepth)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return after the drain budget")
	}
	if n := rec.arms()["drain/timeout"]; n != 1 {
		t.Errorf("drain/timeout records = %d, want 1 (%v)", n, rec.arms())
	}
}

// TestDecideRestartsAfterTimeout: a policy hook that outlives its deadline
// refuses the call with the deadline's reason, and the next decision
// starts a new process.
func TestDecideRestartsAfterTimeout(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := NewSet([]Spec{{Name: "stuck", Command: exe, Dir: t.TempDir(), Env: []string{helperEnv + "=stuck"},
		Binding: OnShell, ExecutionMode: "blocking", CommitPolicy: ArmDeny, DeadlineSecs: 1}}, nil, nil)
	defer s.Close()
	for i := range 2 {
		d := s.Decide(context.Background(), OnShell, map[string]any{"argv": []string{"ls"}})
		if d == nil || d.Hook != "stuck" || d.Reason != "the hook did not answer within 1 s" {
			t.Fatalf("decision %d = %+v", i+1, d)
		}
	}
	if got := s.Hooks()[0].seq; got != 2 {
		t.Errorf("requests sent = %d, want one to each of two processes", got)
	}
}

// TestAsyncQueueBlock: under on_overflow block a full queue makes dispatch
// wait for room instead of dropping (no queue-overflow record); the
// session's end releases a dispatch still waiting.
func TestAsyncQueueBlock(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s := NewSet([]Spec{{Name: "slow", Command: exe, Dir: t.TempDir(), Env: []string{helperEnv + "=stuck"},
		ExecutionMode: "async", CommitPolicy: ArmNone, OnOverflow: "block"}}, nil, rec.write)
	s.drain = 200 * time.Millisecond
	sent := make(chan struct{})
	go func() { // owned by the test: ends when Close releases it
		defer close(sent)
		for range QueueDepth + 5 {
			s.Observe(context.Background(), OnInference, map[string]any{"turn": 1})
		}
	}()
	q := s.async[s.Hooks()[0]]
	for deadline := time.Now().Add(30 * time.Second); len(q.jobs) < QueueDepth; { // the queue fills
		if time.Now().After(deadline) {
			t.Fatalf("the queue holds %d events", len(q.jobs))
		}
		time.Sleep(time.Millisecond)
	}
	s.Close()
	select {
	case <-sent:
	case <-time.After(30 * time.Second):
		t.Fatal("a dispatch waiting for room was not released by Close")
	}
	arms := rec.arms()
	if arms[OnInference+"/queue-overflow"] != 0 || arms["drain/timeout"] != 1 {
		t.Errorf("records = %v, want no overflow and one drain timeout", arms)
	}
}
