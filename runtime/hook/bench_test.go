package hook

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

// helperEnv makes the test binary a hook: it answers every request none.
const helperEnv = "MUR_HOOK_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "1":
		serveNone()
		return
	case "stuck": // reads its first request and never answers
		bufio.NewReader(os.Stdin).ReadString('\n')
		select {}
	}
	os.Exit(m.Run())
}

// serveNone is the helper hook: one none per request line.
func serveNone() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), maxLine)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var r struct {
			ID int64 `json:"id"`
		}
		_ = json.Unmarshal(in.Bytes(), &r)
		fmt.Fprintf(out, "{\"id\":%d,\"answer\":\"none\"}\n", r.ID)
		out.Flush()
	}
}

// helperSet is a Set with one blocking on-tool-call policy hook: this
// test binary as the helper.
func helperSet(t testing.TB) *Set {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := NewSet([]Spec{{Name: "bench", Command: exe, Dir: t.TempDir(), Env: []string{helperEnv + "=1"},
		Binding: OnToolCall, ExecutionMode: "blocking", CommitPolicy: ArmDeny}}, nil, nil)
	t.Cleanup(s.Close)
	return s
}

// benchPayload is a tool call event of a usual size.
var benchPayload = map[string]any{"turn": 3, "task_id": "tsk_0192", "tool_name": "edit",
	"input": json.RawMessage(`{"path":"src/main.go","content":"package main\n\nfunc main() {}\n"}`), "input_bytes": 60}

// BenchmarkDecide is the added cost of one blocking on-tool-call decision:
// 1,000 decisions answered none by a hook process, against the same
// decisions with no hook; p50 and p99 are reported per decision.
func BenchmarkDecide(b *testing.B) {
	for _, c := range []struct {
		name string
		set  func(testing.TB) *Set
	}{
		{"no-hook", func(testing.TB) *Set { return NewSet(nil, nil, nil) }},
		{"one-hook", helperSet},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := c.set(b)
			ctx := context.Background()
			if d := s.Decide(ctx, OnToolCall, benchPayload); d != nil { // the first call starts the process
				b.Fatalf("Decide = %+v", d)
			}
			const calls = 1000
			took := make([]time.Duration, 0, calls*b.N)
			b.ResetTimer()
			for range b.N {
				for range calls {
					start := time.Now()
					if d := s.Decide(ctx, OnToolCall, benchPayload); d != nil {
						b.Fatalf("Decide = %+v", d)
					}
					took = append(took, time.Since(start))
				}
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1e3, "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds())/1e3, "p99-µs")
		})
	}
}
