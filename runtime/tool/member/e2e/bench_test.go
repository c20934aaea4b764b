package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// The benchmarks here run real formations of the built mur; run them with
// the commands in BENCHMARKS.md ("Member calls").

// delayTurn is a scripted turn that answers after ms milliseconds.
func delayTurn(ms int) string {
	return fmt.Sprintf("{delay_ms: %d, text: \"done after %d ms\"}", ms, ms)
}

// ms reads a line's Unix-ms timestamp.
func ms(l trace.Line) int64 { return l.Timestamp }

// BenchmarkFormationRounds measures, end to end across processes, the delay
// between a callee's task reaching its terminal state (its task_end) and the
// caller's continuation starting (its task_continued): the lead calls the
// worker in 50 rounds, one call each, the worker answering after a random
// 0–500 ms, so its end falls anywhere in the 500 ms GetTask period.
func BenchmarkFormationRounds(b *testing.B) {
	const rounds = 50
	var delays []int64
	for b.Loop() {
		p := newProject(b)
		var lead, wrk strings.Builder
		fmt.Fprintf(&lead, "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n")
		fmt.Fprintf(&wrk, "script_version: 1\nrules:\n")
		for r := range rounds {
			fmt.Fprintf(&lead, "      - tool_calls: [{name: call-member, input: {member: worker, task: \"round-%03d\"}}]\n      - text: \"waiting\"\n", r)
			fmt.Fprintf(&wrk, "  - match: {contains: \"round-%03d\"}\n    turns: [%s]\n", r, delayTurn(rand.N(500)))
		}
		lead.WriteString("      - text: \"all rounds done\"\n")
		p.install(b, capsule{name: "lead", script: lead.String(), maxTurns: 2*rounds + 1},
			capsule{name: "worker", extra: peerExtra, script: wrk.String()})
		p.roster(b, []string{"lead", "worker"}, "lead:worker")
		l := p.start(b, "rounds")
		if code := l.wait(b); code != 0 {
			b.Fatalf("mur run --roster exited %d:\n%s", code, l.stderr.String())
		}
		_, _, _, wdir := l.peer(b, "worker")
		ends := tracetest.Lines[trace.TaskEnd](records(b, wdir))
		conts := tracetest.Lines[trace.TaskContinued](records(b, l.entry.RecordsDir))
		if len(ends) != rounds || len(conts) != rounds {
			b.Fatalf("%d worker task_end, %d lead task_continued, want %d each", len(ends), len(conts), rounds)
		}
		for i := range rounds {
			delays = append(delays, ms(conts[i])-ms(ends[i]))
		}
	}
	reportDelays(b, delays)
}

// BenchmarkFanOut8 is one member calling 8 members at once: the 8 sends
// (the call-member tool calls' durations together), the wait for the last
// answer, and the delay from the last callee's end to the continuation.
// Each callee answers after a random 0–2000 ms.
func BenchmarkFanOut8(b *testing.B) {
	var sends, waits, lasts []int64
	for b.Loop() {
		p := newProject(b)
		members := []string{"lead"}
		var calls []string
		caps := []capsule{}
		for i := 1; i <= 8; i++ {
			name := fmt.Sprintf("w%d", i)
			members = append(members, name)
			calls = append(calls, fmt.Sprintf("          - {name: call-member, input: {member: %s, task: \"part %d\"}}", name, i))
			caps = append(caps, capsule{name: name, extra: peerExtra, script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns: [" + delayTurn(rand.N(2000)) + "]\n"})
		}
		lead := capsule{name: "lead", script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls:\n" +
			strings.Join(calls, "\n") + "\n      - text: \"waiting\"\n      - text: \"{{member_answer}}\"\n"}
		p.install(b, append([]capsule{lead}, caps...)...)
		p.roster(b, members, "lead:"+strings.Join(members[1:], ","))
		l := p.start(b, "fan out")
		if code := l.wait(b); code != 0 {
			b.Fatalf("mur run --roster exited %d:\n%s", code, l.stderr.String())
		}
		recs := records(b, l.entry.RecordsDir)
		var send int64
		for _, r := range of[trace.ToolCall](b, recs) {
			send += r.DurationMS
		}
		cont := of[trace.TaskContinued](b, recs)
		if len(cont) != 1 || len(cont[0].MemberCalls) != 8 {
			b.Fatalf("task_continued = %+v, want one with 8 answers", cont)
		}
		var last int64
		for _, name := range members[1:] {
			_, _, _, dir := l.peer(b, name)
			last = max(last, ms(tracetest.Lines[trace.TaskEnd](records(b, dir))[0]))
		}
		sends = append(sends, send)
		waits = append(waits, cont[0].WaitedMS)
		lasts = append(lasts, ms(tracetest.Lines[trace.TaskContinued](recs)[0])-last)
	}
	b.ReportMetric(median(sends), "send8-ms")
	b.ReportMetric(median(waits), "wait-ms")
	b.ReportMetric(median(lasts), "last-end-to-continue-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkCallerCPUWhileWaiting reads the caller's CPU time (utime+stime in
// /proc/<pid>/stat) over 10 s during which its one call is held and polled.
func BenchmarkCallerCPUWhileWaiting(b *testing.B) {
	const window = 10 * time.Second
	var cpu []int64
	for b.Loop() {
		p := newProject(b)
		started, release := p.fifo(b, "started"), p.fifo(b, "release")
		w := capsule{name: "worker", shell: true, extra: peerExtra, script: fmt.Sprintf(`script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo up > %s; cat %s"}}]
      - text: "released"
`, started, release)}
		p.install(b, leadCalls("worker"), w)
		p.roster(b, []string{"lead", "worker"}, "lead:worker")
		l := p.start(b, "wait")
		l.readAll(b, started)
		t0 := cpuTicks(b, l.entry.PID)
		time.Sleep(window) // the measured wait itself
		t1 := cpuTicks(b, l.entry.PID)
		l.writeTo(b, release)
		if code := l.wait(b); code != 0 {
			b.Fatalf("mur run --roster exited %d:\n%s", code, l.stderr.String())
		}
		cpu = append(cpu, (t1-t0)*10) // USER_HZ is 100: a tick is 10 ms
	}
	b.ReportMetric(median(cpu)/window.Seconds(), "cpu-ms/s")
	b.ReportMetric(median(cpu)/window.Seconds()/10, "cpu-%")
	b.ReportMetric(0, "ns/op")
}

// cpuTicks is utime+stime of pid in clock ticks.
func cpuTicks(b *testing.B, pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k
}

func median(v []int64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return float64(s[len(s)/2])
}

func reportDelays(b *testing.B, d []int64) {
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(p float64) float64 { return float64(s[int(p*float64(len(s)-1))]) }
	b.ReportMetric(float64(len(s)), "calls")
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(at(1), "max-ms")
	b.ReportMetric(0, "ns/op")
}
