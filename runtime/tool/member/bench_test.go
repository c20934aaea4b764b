package member

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/formation"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// loopbackDoor is a member's door on a real loopback listener whose tasks
// end at a random time, up to spread after they are taken. It records when
// each task became terminal.
type loopbackDoor struct {
	spread time.Duration
	mu     sync.Mutex
	ends   map[string]time.Time
}

func (d *loopbackDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ID string `json:"id"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var result any
	switch req.Method {
	case a2a.MethodSendMessage:
		id := a2a.NewID(a2a.PrefixTask)
		d.mu.Lock()
		d.ends[id] = time.Now().Add(rand.N(d.spread))
		d.mu.Unlock()
		result = map[string]any{"task": task(id, a2a.TaskStateSubmitted, "")}
	case a2a.MethodGetTask:
		d.mu.Lock()
		end := d.ends[req.Params.ID]
		d.mu.Unlock()
		if time.Now().Before(end) {
			result = task(req.Params.ID, a2a.TaskStateWorking, "")
		} else {
			result = completed(req.Params.ID, "done")
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

func (d *loopbackDoor) end(id string) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ends[id]
}

// BenchmarkContinuationDelay measures CALL-10's polling cost: the delay
// between a callee's task reaching a terminal state and the moment the
// caller's loop is woken to continue (its call set's Changed closes with
// nothing outstanding), over 200 calls per iteration, each its own task,
// through the real tool, client and 500 ms GetTask polling against a door on
// loopback. Tasks end uniformly within 2 s of being taken, so the expected
// median is ~250 ms and the worst ~500 ms plus a read.
func BenchmarkContinuationDelay(b *testing.B) {
	door := &loopbackDoor{spread: 2 * time.Second, ends: map[string]time.Time{}}
	srv := httptest.NewServer(door)
	defer srv.Close()
	dir := directory{lookup: func(_ context.Context, callee string) (formation.Callee, error) {
		return formation.Callee{Address: formation.Address{Name: callee, URL: srv.URL}, Token: "tok"}, nil
	}}
	impls, err := Tools(Config{Callees: []string{"worker"}, Directory: dir, Allow: allowLocalhost(b)})
	if err != nil {
		b.Fatal(err)
	}
	tw, err := trace.Open(b.TempDir()+"/trace.jsonl", "ses_bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tw.Close()
	const calls = 200
	var delays []time.Duration
	for b.Loop() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range calls {
			ts := tool.NewTaskState(tool.TaskInfo{ID: fmt.Sprintf("tsk_%d", i), Trust: "trusted"}, tw)
			res := impls[tool.NameCallMember].Call(b.Context(), &tool.CallContext{Task: ts}, json.RawMessage(`{"member":"worker","task":"x"}`))
			var data map[string]string
			_ = json.Unmarshal([]byte(res.Data), &data)
			s := findSet(ts)
			wg.Go(func() {
				for {
					ch := ts.Changed()
					if s.Outstanding() == 0 {
						break
					}
					<-ch
				}
				woke := time.Now()
				mu.Lock()
				delays = append(delays, woke.Sub(door.end(data["task_id"])))
				mu.Unlock()
				s.Deliver()
				s.Abandon()
			})
		}
		wg.Wait()
	}
	slices.Sort(delays)
	pct := func(p float64) float64 {
		return float64(delays[int(p*float64(len(delays)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(float64(len(delays)), "calls")
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
	b.ReportMetric(0, "ns/op")
}
