package traceview

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/murmur-go/mur/runtime/trace"
)

// Event is one line of a timeline: when, whose, what. Calls
// between members read as arrows: "→ worker" for a call handed over, "←
// worker" for its outcome.
type Event struct {
	AtMS   int64  // the record's timestamp, Unix ms
	Member string // the member (or capsule) whose trace holds it
	Text   string
}

// EventOf returns the timeline text of one trace line, and false for a
// record a timeline leaves out (a plan step, a status poll …).
func EventOf(l trace.Line) (string, bool) {
	rec, known, err := l.Record()
	if err != nil || !known {
		return "", false
	}
	switch r := rec.(type) {
	case trace.SessionStart:
		return fmt.Sprintf("session %s started: %s v%s", l.SessionID, r.CapsuleName, r.CapsuleVersion), true
	case trace.TaskStart:
		from := ""
		if r.CallerMember != "" {
			from = ", from " + r.CallerMember
		}
		return fmt.Sprintf("task %s started (%s%s)", short(r.TaskID), r.Source, from), true
	case trace.Inference:
		what := r.Decision
		if r.ToolName != nil {
			what += " " + *r.ToolName
		}
		if r.Origin != "" { // a hook's call, or the built-in compactor's: no turn of the agent's
			return fmt.Sprintf("turn %d: %s call %s", r.Turn, r.Origin, what), true
		}
		return fmt.Sprintf("turn %d: %s", r.Turn, what), true
	case trace.Compaction:
		turn, rest, _ := strings.Cut(compactionText(r), "  ")
		return turn + ": compaction  " + rest, true
	case trace.CompactionDeclined:
		return fmt.Sprintf("turn %d: compaction declined: %s  (%s tokens)", r.Turn, r.Reason, thousands(r.Tokens)), true
	case trace.ToolCall:
		mark, why := "✓", ""
		if r.Status != "ok" {
			mark = "✗"
			if r.Summary != "" {
				why = "  — " + Cut(r.Summary)
			}
		}
		return fmt.Sprintf("  %s %s %s%s", mark, r.ToolName, Duration(r.DurationMS), why), true
	case trace.MemberCallBusy:
		return fmt.Sprintf("→ %s  call %s: busy (offer %d)", r.Member, r.CallID, r.Offer), true
	case trace.MemberCallStart:
		return fmt.Sprintf("→ %s  call %s: taken as task %s", r.Member, r.CallID, short(r.MemberTaskID)), true
	case trace.MemberCall:
		why := ""
		if r.Status != "completed" {
			why = "  — " + Cut(r.Output)
		}
		return fmt.Sprintf("← %s  call %s: %s %s%s", r.Member, r.CallID, r.Status, Duration(r.DurationMS), why), true
	case trace.DriverRetry:
		return fmt.Sprintf("  retry: %s attempt %d failed (%s), next in %s", r.Driver, r.Attempt, r.Cause, Duration(r.WaitMS)), true
	case trace.DelegationStart:
		return fmt.Sprintf("⇒ %s@%s  delegation %s: child %s", r.Capsule, r.Version, r.DelegationID, r.ChildSessionID), true
	case trace.Delegation:
		return fmt.Sprintf("⇐ %s@%s  delegation: %s %s", r.Capsule, r.Version, r.Outcome, Duration(r.DurationMS)), true
	case trace.TaskFailed:
		return fmt.Sprintf("task %s failed: %s: %s", short(r.TaskID), r.Cause, Cut(r.Reason)), true
	case trace.TaskCanceled:
		return fmt.Sprintf("task %s canceled (phase %s)", short(r.TaskID), r.Phase), true
	case trace.TaskEnd:
		return fmt.Sprintf("task %s ended %s: %d turns, %s", short(r.TaskID), r.ExitStatus, r.Turns, Duration(r.DurationMS)), true
	case trace.SessionEnd:
		return fmt.Sprintf("session ended %s", r.ExitStatus), true
	}
	return "", false
}

// Clock is a timestamp as a timeline shows it: UTC, to the millisecond.
func Clock(ms int64) string { return time.UnixMilli(ms).UTC().Format("15:04:05.000") }

// RenderTimeline renders events merged into one timeline, oldest first (a
// stable sort: one member's events keep their order), the member column
// padded to the widest name.
func RenderTimeline(events []Event) string {
	sort.SliceStable(events, func(i, j int) bool { return events[i].AtMS < events[j].AtMS })
	w := 0
	for _, e := range events {
		w = max(w, len(e.Member))
	}
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "%s  %-*s  %s\n", Clock(e.AtMS), w, e.Member, e.Text)
	}
	return b.String()
}

// short is an id as a timeline shows it: its prefix and last 8 characters,
// the part that tells ids minted in one millisecond apart.
func short(id string) string {
	prefix, rest, ok := strings.Cut(id, "_")
	if !ok || len(rest) <= 8 {
		return id
	}
	return prefix + "_…" + rest[len(rest)-8:]
}
