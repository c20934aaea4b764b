package e2e

import (
	"bufio"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// BenchmarkDelegateToStarted measures delegate-task from the tool call to
// started — the referee, the child's mur run spawned, its door ready and
// its task held (DLG-3, DLG-4) — as the parent's tool_call.duration_ms, over
// 50 delegations a run, one at a time (each outcome is waited for before the
// next call). Run it with the command in BENCHMARKS.md ("Delegation").
func BenchmarkDelegateToStarted(b *testing.B) {
	const n = 50
	var started []int64
	for b.Loop() {
		w := newWorld(b)
		w.install(b, quick("worker", ""))
		var s strings.Builder
		s.WriteString("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n")
		for i := range n {
			fmt.Fprintf(&s, "      - tool_calls: [{name: delegate-task, input: {capsule: worker, version: \"0.1.0\", task: \"part %d\"}}]\n      - text: waiting\n", i)
		}
		s.WriteString("      - text: ALL-DONE\n")
		dir := w.put(b, capsule{name: "parent", caps: "  spawn:\n    allow: [local/worker@0.1.0]\n", script: s.String(), maxTurns: 2*n + 1})
		r, stderr, code := w.run(b, dir, "delegate")
		if code != 0 {
			b.Fatalf("mur run exited %d: %s", code, stderr)
		}
		recs := records(b, r.RecordsDir)
		calls := 0
		for _, tc := range of[trace.ToolCall](b, recs) {
			if tc.ToolName == "delegate-task" && tc.Status == "ok" {
				started = append(started, tc.DurationMS)
				calls++
			}
		}
		if calls != n {
			b.Fatalf("%d delegations started, want %d", calls, n)
		}
	}
	slices.Sort(started)
	b.ReportMetric(float64(started[len(started)/2]), "p50-ms")
	b.ReportMetric(float64(started[len(started)*95/100]), "p95-ms")
	b.ReportMetric(float64(started[len(started)-1]), "max-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkCapsuleReady is the baseline in the same run: the same capsule
// started by hand, `mur run --json` to its readiness line (its door
// serving), 50 times a run — what a delegation costs beyond it is the
// referee, the handover and the parent's side.
func BenchmarkCapsuleReady(b *testing.B) {
	const n = 50
	var ready []int64
	for b.Loop() {
		w := newWorld(b)
		dir := w.put(b, quick("worker", ""))
		for range n {
			cmd := w.command(dir, "--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if err := testmur.Start(cmd); err != nil {
				b.Fatal(err)
			}
			if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
				b.Fatalf("readiness line: %v", err)
			}
			ready = append(ready, time.Since(start).Milliseconds())
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
	}
	slices.Sort(ready)
	b.ReportMetric(float64(ready[len(ready)/2]), "p50-ms")
	b.ReportMetric(float64(ready[len(ready)*95/100]), "p95-ms")
	b.ReportMetric(float64(ready[len(ready)-1]), "max-ms")
	b.ReportMetric(0, "ns/op")
}
