package traceview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestRenderGoldenCLI10 renders hand-written traces following capsule.md §6.
func TestRenderGoldenCLI10(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"single", "multi", "asks", "asks-live", "hooks"} {
		t.Run(name, func(t *testing.T) {
			tr, err := Read(filepath.Join("testdata", name+".jsonl"))
			if err != nil {
				t.Fatalf("Read() error = %v", err)
			}
			golden.Check(t, name, Render(tr))
		})
	}
}

// TestRenderLiteralCLI10 spells the single-task summary out, so the layout
// (headers of 49 columns, 12-column labels) is readable in the test itself.
func TestRenderLiteralCLI10(t *testing.T) {
	t.Parallel()
	tr, err := Read(filepath.Join("testdata", "single.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := `── Session ──────────────────────────────────────
session:    ses_019a1000000070008000000000000001
capsule:    hello-shell v0.1.0
model:      scripted
status:     ok
duration:   1.2s
capabilities: shell
tools:      bash

── Turns ────────────────────────────────────────
count:      2  (max: 4)

── Tokens ───────────────────────────────────────
input:      320
output:     43
total:      363
provider:   300 in, 41 out

── Tool calls ───────────────────────────────────
count:      1  (1 ok, 0 error)  success 100%
latency:    avg 38ms
  turn 0  bash 38ms ✓  {"command":"ls -la"}

── Shell calls ──────────────────────────────────
count:      1
  turn 0  /usr/bin/bash exit 0  31ms  ls -la
`
	if got := Render(tr); got != want {
		t.Errorf("Render() =\n%s\nwant\n%s", got, want)
	}
	for _, l := range strings.Split(want, "\n") {
		if strings.HasPrefix(l, "── ") && len([]rune(l)) != HeaderWidth {
			t.Errorf("header %q is %d columns, want %d", l, len([]rune(l)), HeaderWidth)
		}
	}
}

// TestReadStrictETRC001 checks every E-TRC-001 form with its exact text.
func TestReadStrictETRC001(t *testing.T) {
	t.Parallel()
	p := func(name string) string { return filepath.Join("testdata", name+".jsonl") }
	cases := []struct{ file, want string }{
		{"malformed", "error[E-TRC-001]: " + p("malformed") + ":2: malformed JSON: unexpected end of JSON input\n"},
		{"blankline", "error[E-TRC-001]: " + p("blankline") + ":2: malformed JSON: unexpected end of JSON input\n"},
		{"array", "error[E-TRC-001]: " + p("array") + ":2: malformed JSON: not a JSON object\n"},
		{"wrongtype", "error[E-TRC-001]: " + p("wrongtype") + ":2: malformed JSON: tool_call.duration_ms holds a JSON string\n"},
		{"notype", "error[E-TRC-001]: " + p("notype") + ":2: malformed JSON: no event_type\n"},
		{"nostart", "error[E-TRC-001]: " + p("nostart") + ": no session_start event found\n"},
		{"missing", "error[E-IO-001]: " + p("missing") + ": no such file or directory\n  hint: check the path\n"},
	}
	for _, c := range cases {
		_, err := Read(p(c.file))
		d, ok := diag.As(err)
		if !ok || d.Render() != c.want {
			t.Errorf("Read(%s) error = %v, want %q", c.file, err, c.want)
		}
	}
	if _, err := Read(p("nofinalnewline")); err != nil {
		t.Errorf("Read(nofinalnewline) error = %v, want nil", err)
	}
}

func TestDurationCLI10(t *testing.T) {
	t.Parallel()
	cases := map[int64]string{
		0: "0.0s", 99: "0.0s", 999: "0.9s", 1240: "1.2s", 59999: "59.9s",
		60000: "1m00s", 65000: "1m05s", 3599999: "59m59s",
		3600000: "1h00m", 3723000: "1h02m", 90061000: "25h01m", -5: "0.0s",
	}
	for ms, want := range cases {
		if got := Duration(ms); got != want {
			t.Errorf("Duration(%d) = %q, want %q", ms, got, want)
		}
	}
}

func TestCutAndID8CLI10(t *testing.T) {
	t.Parallel()
	s120 := strings.Repeat("é", 120)
	if got := Cut(s120); got != s120 {
		t.Errorf("Cut(120 chars) = %q, want it whole", got)
	}
	if got, want := Cut(s120+"x"), s120+"…"; got != want {
		t.Errorf("Cut(121 chars) = %q, want %q", got, want)
	}
	if got := Cut("a\nb\tc"); got != "a b c" {
		t.Errorf("Cut(line breaks) = %q, want %q", got, "a b c")
	}
	if got := ID8("tsk_0190abcdef0070008000000000000001"); got != "00000001" {
		t.Errorf("ID8() = %q, want 00000001", got)
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{"single", "multi", "malformed", "wrongtype"} {
		data, err := os.ReadFile(filepath.Join("testdata", name+".jsonl"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := parse("fuzz.jsonl", strings.NewReader(string(data)))
		if err != nil {
			if _, ok := diag.As(err); !ok {
				t.Fatalf("parse() error %v is not a diagnostic", err)
			}
			return
		}
		_ = Render(tr)
	})
}

// TestReadLive: a trace without session_end, as a running
// session leaves it, is read and marked live, its totals so far counted
// from its records; a last line still being written is left for later.
func TestReadLive(t *testing.T) {
	t.Parallel()
	tr, err := Read(filepath.Join("testdata", "live.jsonl"))
	if err != nil {
		t.Fatalf("Read(live) error = %v", err)
	}
	if !tr.Live || tr.End.ExitStatus != "running" || tr.End.TotalTurns != len(tr.Inferences) || len(tr.ToolCalls) != 3 {
		t.Errorf("Read(live) = live %v, end %+v, %d tool calls", tr.Live, tr.End, len(tr.ToolCalls))
	}
	golden.Check(t, "live", Render(tr))
	if s := Summarize(tr); !s.Live || s.Status != "running" {
		t.Errorf("Summarize(live) live %v status %q, want true, running", s.Live, s.Status)
	}
	if tr, err := Read(filepath.Join("testdata", "noend.jsonl")); err != nil || !tr.Live {
		t.Errorf("Read(noend) = %+v, %v; want a live trace", tr, err)
	}
}

// TestFailedCallShowsReason: a refused or failed tool call shows the text
// its model read — a refusal as it is, a fenced failure's content — and
// only without one the record's summary.
func TestFailedCallShowsReason(t *testing.T) {
	refusal := "'worker' could not be called: this capsule's capabilities.network.allow does not reach its door."
	fenced := "<untrusted-content source=tool:bash>\nexit 2: no such file\n</untrusted-content>\nnote"
	tr := &Trace{ToolCalls: []trace.ToolCall{
		{Turn: 0, ToolName: "call-member", Status: "error", Summary: "call-member: refused", Output: &refusal},
		{Turn: 1, ToolName: "bash", Status: "error", Summary: "bash: exit 2", Output: &fenced},
		{Turn: 2, ToolName: "bash", Status: "error", Summary: "bash: exit 3"},
	}}
	got := strings.Join(toolSection(tr), "\n")
	for _, want := range []string{
		"  turn 0  call-member 0ms ✗  — " + refusal,
		"  turn 1  bash 0ms ✗  — exit 2: no such file",
		"  turn 2  bash 0ms ✗  — bash: exit 3",
	} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("the tool calls section lacks %q:\n%s", want, got)
		}
	}
}

// TestRenderCompaction: the Compaction section lists each check that
// fired, a replacement's tokens or a decline's reason.
func TestRenderCompaction(t *testing.T) {
	t.Parallel()
	tr := &Trace{Compactions: []trace.Record{
		trace.Compaction{Turn: 7, TaskID: "tsk_a", HookName: "murmur-hook-compact", TokensBefore: 12325, TokensBeforeSource: "estimate", TokensAfter: 5488},
		trace.CompactionDeclined{Turn: 9, TaskID: "tsk_a", Tokens: 1234567, Reason: "unresolved_tool_call"},
	}}
	want := "── Compaction ───────────────────────────────────\n  turn 7  murmur-hook-compact  12,325 → 5,488 tokens\n  turn 9  declined: unresolved_tool_call  (1,234,567 tokens)\n"
	if got := strings.Join(compactionLines(tr), "\n"); !strings.Contains(header("Compaction")+"\n"+got+"\n", want) {
		t.Errorf("compaction lines =\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(Render(tr), want) {
		t.Errorf("Render() =\n%s\nwant a section\n%s", Render(tr), want)
	}
}

// TestTimelineCompaction: a formation's timeline lists a compaction and a
// declined one at their turns, and the compactor's summary call as the
// hook's call, not as a turn of the agent's.
func TestTimelineCompaction(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rec  trace.Record
		want string
	}{
		{trace.Compaction{Turn: 6, TaskID: "tsk_a", HookName: "murmur-hook-compact", TokensBefore: 12325, TokensBeforeSource: "estimate", TokensAfter: 5488},
			"turn 6: compaction  murmur-hook-compact  12,325 → 5,488 tokens"},
		{trace.Compaction{Turn: 3, TaskID: "tsk_a", HookName: "claude", TokensBefore: 155331, TokensBeforeSource: "harness", Source: "harness", Trigger: "auto"},
			"turn 3: compaction  claude compacted its own conversation (auto)  155,331 tokens before"},
		{trace.CompactionDeclined{Turn: 9, TaskID: "tsk_a", Tokens: 14000, Reason: "no_hook_replacement"},
			"turn 9: compaction declined: no_hook_replacement  (14,000 tokens)"},
		{trace.Inference{Turn: 6, TaskID: "tsk_a", Decision: "end_turn", Origin: "hook:murmur-hook-compact"},
			"turn 6: hook:murmur-hook-compact call end_turn"},
	} {
		b, err := trace.MarshalLine(trace.Header{EventID: "evt_1", SessionID: "ses_1", Timestamp: 1}, c.rec)
		if err != nil {
			t.Fatal(err)
		}
		l, err := trace.ParseLine(b)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := EventOf(l); !ok || got != c.want {
			t.Errorf("EventOf(%s) = %q, %v; want %q", c.rec.EventType(), got, ok, c.want)
		}
	}
}
