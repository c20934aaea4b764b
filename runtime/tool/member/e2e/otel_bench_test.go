package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/otlptest"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// BenchmarkFormation200CallsOTEL is the formation benchmark with OTLP: one run
// of a real formation making 200 member calls — the lead calls 20 workers
// at once, 10 rounds — with OTLP export off and on (to a receiver the
// benchmark runs). It reports the run's wall time (exec of mur run --roster
// to its exit) and the CPU time of the launcher and every member (the
// launcher reaps them, so its rusage holds theirs). The goal: under 5 %
// apart. Run both in one go, interleaved (BENCHMARKS.md). A run that made
// fewer than 200 member calls, or with export on sent fewer than 200 spans,
// fails.
func BenchmarkFormation200CallsOTEL(b *testing.B) {
	const workers, rounds = 20, 10
	for _, mode := range []string{"off", "on"} {
		b.Run("otel="+mode, func(b *testing.B) {
			var wall, cpu []int64
			spans := 0
			for b.Loop() {
				p := newProject(b)
				var rcv *otlptest.Receiver
				if mode == "on" {
					rcv = otlptest.Start(b)
					p.env = []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.URL}
				}
				members := []string{"lead"}
				caps := []capsule{}
				var calls []string
				for i := 1; i <= workers; i++ {
					name := fmt.Sprintf("w%02d", i)
					members = append(members, name)
					calls = append(calls, fmt.Sprintf("{name: call-member, input: {member: %s, task: \"part %d\"}}", name, i))
					caps = append(caps, capsule{name: name, extra: peerExtra, script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns: [{text: \"done\"}]\n"})
				}
				var lead strings.Builder
				lead.WriteString("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n")
				for range rounds {
					fmt.Fprintf(&lead, "      - tool_calls: [%s]\n      - text: \"waiting\"\n", strings.Join(calls, ", "))
				}
				lead.WriteString("      - text: \"all rounds done\"\n")
				p.install(b, append([]capsule{{name: "lead", script: lead.String(), maxTurns: 2*rounds + 1}}, caps...)...)
				p.roster(b, members, "lead:"+strings.Join(members[1:], ","))
				start := time.Now()
				l := p.start(b, "200 calls")
				if code := l.wait(b); code != 0 {
					b.Fatalf("mur run --roster exited %d:\n%s", code, l.stderr.String())
				}
				wall = append(wall, time.Since(start).Milliseconds())
				st := l.cmd.ProcessState
				cpu = append(cpu, (st.UserTime() + st.SystemTime()).Milliseconds())
				if n := len(of[trace.MemberCall](b, records(b, l.entry.RecordsDir))); n != workers*rounds {
					b.Fatalf("%d member calls, want %d", n, workers*rounds)
				}
				if rcv != nil {
					// Export on measured nothing unless every member call was
					// exported: one span at least per call.
					n := 0
					testmur.Within(time.Minute, func() bool { n = len(rcv.Spans()); return n >= workers*rounds })
					if n < workers*rounds {
						b.Fatalf("export on, and the receiver got %d spans for %d member calls", n, workers*rounds)
					}
					spans += n
				}
			}
			b.ReportMetric(median(wall), "wall-ms")
			b.ReportMetric(median(cpu), "cpu-ms")
			b.ReportMetric(float64(spans)/float64(b.N), "spans/run")
			b.ReportMetric(0, "ns/op")
		})
	}
}
