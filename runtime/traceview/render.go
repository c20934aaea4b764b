package traceview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/murmur-go/mur/runtime/trace"
)

// Render returns the `mur trace show` summary of tr (capsule.md CLI-10):
// Session, Turns, Tokens, Tool calls and Shell calls always; Failed,
// Cancelled, Rejected, Reopens, Compaction, Member calls, Delegations (tools.md
// DLG-9), Input (request-input's questions, input.md INP-10) and Peer files
// (PFILE-6) when such records exist;
// Hooks (the hooks' denials, faults, seeds and run-inference calls; their
// reopens are under Reopens) when there are any; Tasks when the session ran
// more than one task. Sections are separated by a
// blank line; the text ends with a newline.
func Render(tr *Trace) string {
	sections := [][]string{
		sessionSection(tr),
		turnsSection(tr),
		tokensSection(tr),
		toolSection(tr),
		shellSection(tr),
	}
	add := func(name string, lines []string) {
		if len(lines) > 0 {
			sections = append(sections, append([]string{header(name)}, lines...))
		}
	}
	add("Failed", each(tr.Failed, func(f trace.TaskFailed) string {
		return fmt.Sprintf("  turn %d  %s: %s", f.Turn, f.Cause, Cut(f.Reason))
	}))
	add("Cancelled", each(tr.Canceled, func(c trace.TaskCanceled) string {
		return fmt.Sprintf("  task %s  phase %s", ID8(c.TaskID), c.Phase)
	}))
	add("Rejected", each(tr.Rejected, func(r trace.TaskRejected) string {
		return fmt.Sprintf("  task %s  %s", ID8(r.TaskID), r.Cause)
	}))
	add("Reopens", each(tr.Reopened, func(r trace.TaskReopened) string {
		return fmt.Sprintf("  reopen %d  %s: %s", r.ReopenNumber, r.HookName, Cut(r.Reason))
	}))
	add("Compaction", compactionLines(tr))
	add("Member calls", each(tr.MemberCalls, func(m trace.MemberCall) string {
		l := fmt.Sprintf("  %s  %s  %s  %s", m.CallID, m.Member, m.Status, Duration(m.DurationMS))
		if m.Status != "completed" { // why, never only that it failed
			l += "  — " + Cut(m.Output)
		}
		return l
	}))
	add("Delegations", each(tr.Delegations, func(d trace.Delegation) string {
		id := "-" // a refusal started no child
		if d.DelegationID != nil {
			id = *d.DelegationID
		}
		return fmt.Sprintf("  %s  %s@%s  %s  %s", id, d.Capsule, d.Version, d.Outcome, Duration(d.DurationMS))
	}))
	add("Hooks", hookLines(tr))
	add("Input", inputLines(tr))
	add("Peer files", peerLines(tr))
	if len(tr.TaskEnds) > 1 {
		var lines []string
		for i, te := range tr.TaskEnds {
			lines = append(lines, fmt.Sprintf("task %d  %s  turns: %d  in: %d  out: %d  %s  %s",
				i+1, ID8(te.TaskID), te.Turns, te.InputTokens, te.OutputTokens, te.ExitStatus, Duration(te.DurationMS)))
		}
		add("Tasks", lines)
	}
	var b strings.Builder
	for i, s := range sections {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, l := range s {
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// hookLines are the Hooks section: each denial, fault, seed and hook
// inference, in that order, each kind in file order.
func hookLines(tr *Trace) []string {
	var out []string
	for _, d := range tr.Hooks.Denied {
		out = append(out, fmt.Sprintf("  denied     turn %d  %s  %s  %s: %s", d.Turn, d.Event, d.HookName, d.Target, Cut(d.Reason)))
	}
	for _, f := range tr.Hooks.Faults {
		out = append(out, fmt.Sprintf("  fault      %s  %s  %s: %s", f.Event, f.HookName, f.Arm, Cut(f.Reason)))
	}
	for _, s := range tr.Hooks.Seeds {
		what := "accepted"
		if !s.Accepted {
			what = "rejected " + s.Reason
		}
		out = append(out, fmt.Sprintf("  seed       task %s  %s  %s  %d message(s), %d bytes", ID8(s.TaskID), s.HookName, what, s.Messages, s.Bytes))
	}
	for _, in := range tr.Inferences {
		if name, ok := strings.CutPrefix(in.Origin, "hook:"); ok {
			out = append(out, fmt.Sprintf("  inference  turn %d  %s  %d in, %d out", in.Turn, name, in.InputTokens, in.OutputTokens))
		}
	}
	return out
}

func each[T any](recs []T, line func(T) string) []string {
	var out []string
	for _, r := range recs {
		out = append(out, line(r))
	}
	return out
}

func sessionSection(tr *Trace) []string {
	s := tr.Start
	lines := []string{
		header("Session"),
		labelled("session:", tr.SessionID),
		labelled("capsule:", s.CapsuleName+" v"+s.CapsuleVersion),
		labelled("model:", modelOf(s.Model)),
		labelled("status:", status(tr)),
		labelled("duration:", Duration(duration(tr))),
		labelled("capabilities:", list(s.Capabilities)),
		labelled("tools:", list(s.ToolsDeclared)),
	}
	if s.FormationID != "" {
		lines = append(lines, labelled("formation:", s.FormationID))
	}
	if s.ResumedFrom != nil {
		lines = append(lines, labelled("resumed:", *s.ResumedFrom))
	}
	return lines
}

// modelOf is session_start.model, or "none" when null (a harness on its
// own default, process.md HREC-4).
func modelOf(m *string) string {
	if m == nil {
		return "none"
	}
	return *m
}

// turnsSection is the turn count and, when the inference records carry
// duration_ms, the model's latency.
func turnsSection(tr *Trace) []string {
	// max_turns bounds each task: beside a total over several tasks it says so.
	count := fmt.Sprintf("%d  (max: %d)", tr.End.TotalTurns, tr.Start.MaxTurns)
	if n := len(tr.TaskEnds); n > 1 {
		count = fmt.Sprintf("%d over %d tasks  (max: %d per task)", tr.End.TotalTurns, n, tr.Start.MaxTurns)
	}
	lines := []string{header("Turns"), labelled("count:", count)}
	if l := latency(tr); l != "" {
		lines = append(lines, labelled("latency:", l))
	}
	return lines
}

func tokensSection(tr *Trace) []string {
	in, out := tr.End.TotalInputTokens, tr.End.TotalOutputTokens
	lines := []string{
		header("Tokens"),
		labelled("input:", strconv.FormatInt(in, 10)),
		labelled("output:", strconv.FormatInt(out, 10)),
		labelled("total:", strconv.FormatInt(in+out, 10)),
	}
	var pin, pout int64
	var reported bool
	for _, inf := range tr.Inferences {
		if inf.InputTokensActual != nil {
			pin += *inf.InputTokensActual
			reported = true
		}
		if inf.OutputTokensActual != nil {
			pout += *inf.OutputTokensActual
			reported = true
		}
	}
	if reported {
		lines = append(lines, labelled("provider:", fmt.Sprintf("%d in, %d out", pin, pout)))
	}
	return lines
}

func toolSection(tr *Trace) []string {
	lines := []string{header("Tool calls")}
	n := len(tr.ToolCalls)
	if n == 0 {
		return append(lines, labelled("count:", "0"))
	}
	var ok, sum int64
	for _, c := range tr.ToolCalls {
		if c.Status == "ok" {
			ok++
		}
		sum += c.DurationMS
	}
	lines = append(lines,
		labelled("count:", fmt.Sprintf("%d  (%d ok, %d error)  success %d%%", n, ok, int64(n)-ok, ok*100/int64(n))),
		labelled("latency:", fmt.Sprintf("avg %dms", sum/int64(n))))
	for _, c := range tr.ToolCalls {
		mark := "✗"
		if c.Status == "ok" {
			mark = "✓"
		}
		l := fmt.Sprintf("  turn %d  %s %dms %s", c.Turn, c.ToolName, c.DurationMS, mark)
		if in := compactJSON(c.Input); in != "" {
			l += "  " + Cut(in)
		}
		if c.Status != "ok" { // a failed call's reason, as the model read it
			if why := failedOutput(c.Output); why != "" {
				l += "  — " + Cut(why)
			} else if c.Summary != "" {
				l += "  — " + Cut(c.Summary)
			}
		}
		lines = append(lines, l)
	}
	return lines
}

// failedOutput is what the model read of a failed call: its output, the
// content of the fence when the output is fenced; "" when none was kept.
func failedOutput(out *string) string {
	if out == nil {
		return ""
	}
	s := *out
	if strings.HasPrefix(s, "<untrusted-content source=") {
		if _, body, ok := strings.Cut(s, "\n"); ok {
			s, _, _ = strings.Cut(body, "\n</untrusted-content>")
		}
	}
	return strings.TrimSpace(s)
}

func shellSection(tr *Trace) []string {
	lines := []string{header("Shell calls"), labelled("count:", strconv.Itoa(len(tr.Shells)+tr.Detached))}
	for _, s := range tr.Shells {
		lines = append(lines, fmt.Sprintf("  turn %d  %s exit %d  %dms  %s", s.Turn, s.Binary, s.ExitCode, s.DurationMS, Cut(s.Command)))
	}
	return lines
}

// status is session_end.exit_status, or for a live trace what it is.
func status(tr *Trace) string {
	if tr.Live {
		return "running (live: no session_end yet)"
	}
	return tr.End.ExitStatus
}

// duration is session_end's, or for a live trace the time its records span.
func duration(tr *Trace) int64 {
	if tr.Live {
		return tr.LastMS - tr.StartMS
	}
	return tr.End.DurationMS
}

// compactionText is one compaction: its turn, its compactor and the sizes;
// a harness's own names its trigger and the size it reported before.
func compactionText(c trace.Compaction) string {
	if c.Source == "harness" {
		return fmt.Sprintf("turn %d  %s compacted its own conversation (%s)  %s tokens before", c.Turn, c.HookName, c.Trigger, thousands(c.TokensBefore))
	}
	return fmt.Sprintf("turn %d  %s  %s → %s tokens", c.Turn, c.HookName, thousands(c.TokensBefore), thousands(c.TokensAfter))
}

// compactionLines lists each compaction check that fired: the tokens it
// replaced and what the replacement makes, or why it was declined.
func compactionLines(tr *Trace) []string {
	var out []string
	for _, r := range tr.Compactions {
		switch c := r.(type) {
		case trace.Compaction:
			out = append(out, "  "+compactionText(c))
		case trace.CompactionDeclined:
			out = append(out, fmt.Sprintf("  turn %d  declined: %s  (%s tokens)", c.Turn, c.Reason, thousands(c.Tokens)))
		}
	}
	return out
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
