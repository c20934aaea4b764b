package view

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/murmur-go/mur/runtime/trace"
)

// errNoTask is the timeline of a task the view does not know.
var errNoTask = errors.New("no such task")

// timeline reads member's task id back from its trace and lists it: turns
// (inference calls with latency and tokens), tool calls with their status,
// compactions, member calls, the waits for answers, and how the task ended.
func (m *model) timeline(member, id string) (Timeline, error) {
	m.mu.Lock()
	t, ok := m.tasks[taskKey(member, id)]
	var path string
	var refs []ref
	if ok {
		path, refs = t.trace, append([]ref(nil), t.refs...)
	}
	m.mu.Unlock()
	if !ok {
		return Timeline{}, errNoTask
	}
	tl := Timeline{Member: member, TaskID: id, Items: []Item{}}
	if len(refs) == 0 {
		return tl, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Timeline{}, err
	}
	defer f.Close()
	var prev int64
	for _, rf := range refs {
		line, err := readLine(f, rf.off, rf.n)
		if err != nil {
			return Timeline{}, fmt.Errorf("read %s at %d: %w", path, rf.off, err)
		}
		r, err := decodeRecord(line, rf.off)
		if err != nil {
			continue // it decoded when it was first read; a file rewritten since is not ours to show
		}
		if it, ok := item(r, prev); ok {
			tl.Items = append(tl.Items, it)
		}
		prev = r.Timestamp
	}
	return tl, nil
}

// item renders one record of a task; prev is the timestamp of the task's
// record before it (an inference call's latency is the time since then).
func item(r *record, prev int64) (Item, bool) {
	it := Item{At: r.Timestamp, Kind: r.EventType}
	switch b := r.body.(type) {
	case trace.A2ATaskReceived:
		it.Title = "received at the door"
		if b.CallerMember != "" {
			it.Title, it.Member = "received from "+b.CallerMember, b.CallerMember
		}
		it.CallID = callOfMessage(b.MessageID)
	case trace.TaskStart:
		it.Title = "started"
		it.Detail = fmt.Sprintf("source %s, origin %s", b.Source, b.Origin)
		it.Member = b.CallerMember
	case trace.Inference:
		it.Turn = ptr(int64(b.Turn))
		it.Title = fmt.Sprintf("turn %d · inference (%s)", b.Turn, b.Choice)
		if b.Origin != "" { // a hook's call, or the built-in compactor's: no turn of the agent's
			it.Title = fmt.Sprintf("turn %d · %s call (%s)", b.Turn, b.Origin, b.Choice)
		}
		it.Status = b.Decision
		if b.ToolName != nil {
			it.Detail = "asks for " + *b.ToolName
		}
		if prev > 0 {
			it.MS = ptr(r.Timestamp - prev)
		}
		it.In, it.Out = ptr(b.InputTokens), ptr(b.OutputTokens)
		if b.InputTokensActual != nil {
			it.In = ptr(*b.InputTokensActual)
		}
		if b.OutputTokensActual != nil {
			it.Out = ptr(*b.OutputTokensActual)
		}
	case trace.ToolCall:
		it.Turn = ptr(int64(b.Turn))
		it.Title = fmt.Sprintf("turn %d · tool %s", b.Turn, b.ToolName)
		it.Status, it.MS, it.Detail = b.Status, ptr(b.DurationMS), b.Summary
	case trace.Shell:
		it.Turn = ptr(int64(b.Turn))
		it.Title = fmt.Sprintf("turn %d · shell %s", b.Turn, b.Binary)
		it.Status, it.MS = fmt.Sprintf("exit %d", b.ExitCode), ptr(b.DurationMS)
	case trace.CallDenied: // a policy hook refused the call: it never ran
		it.Turn = ptr(int64(b.Turn))
		it.Title = fmt.Sprintf("turn %d · denied %s", b.Turn, b.Target)
		it.Status, it.Detail = "denied", fmt.Sprintf("%s at %s: %s", b.HookName, b.Event, b.Reason)
	case trace.Compaction: // the conversation replaced by a shorter one
		it.Turn = ptr(int64(b.Turn))
		it.Title = fmt.Sprintf("turn %d · compaction (%s)", b.Turn, b.HookName)
		it.Status, it.Detail = "compacted", fmt.Sprintf("%d → %d tokens (%s count before)", b.TokensBefore, b.TokensAfter, b.TokensBeforeSource)
		if b.Source == "harness" {
			it.Detail = fmt.Sprintf("%d tokens before (the harness's own, %s)", b.TokensBefore, b.Trigger)
		}
	case trace.CompactionDeclined:
		it.Turn = ptr(int64(b.Turn))
		it.Title = fmt.Sprintf("turn %d · compaction declined", b.Turn)
		it.Status, it.Detail = "declined", fmt.Sprintf("%s at %d tokens", b.Reason, b.Tokens)
	case trace.MemberCallBusy:
		it.Title = fmt.Sprintf("call to %s busy (offer %d)", b.Member, b.Offer)
		it.Status, it.CallID, it.Member, it.MS, it.Detail = "busy", b.CallID, b.Member, ptr(b.WaitedMS), b.Message
	case trace.MemberCallStart:
		it.Title = fmt.Sprintf("call to %s started", b.Member)
		it.Status, it.CallID, it.Member = "started", b.CallID, b.Member
		it.Detail = "its task " + b.MemberTaskID
	case trace.MemberCall:
		it.Title = fmt.Sprintf("call to %s %s", b.Member, b.Status)
		it.Status, it.CallID, it.Member, it.MS = b.Status, b.CallID, b.Member, ptr(b.DurationMS)
		if !b.Delivered {
			it.Detail = "not delivered"
		}
	case trace.TaskContinued:
		it.Title = fmt.Sprintf("waited for %d answer(s), continuation %d", len(b.MemberCalls), b.ContinuationNumber)
		it.MS = ptr(b.WaitedMS)
		it.Detail = strings.Join(b.MemberCalls, ", ")
	case trace.TaskFailed:
		it.Turn = ptr(int64(b.Turn))
		it.Title, it.Status, it.Detail = "failed", b.Cause, b.Reason
	case trace.TaskCanceled:
		it.Title, it.Status = "canceled", "phase "+b.Phase
	case trace.TaskRejected:
		it.Title, it.Status = "rejected", b.Cause
	case trace.TaskEnd:
		it.Title = "ended " + b.ExitStatus
		it.Status, it.MS = b.ExitStatus, ptr(b.DurationMS)
		it.In, it.Out = ptr(b.InputTokens), ptr(b.OutputTokens)
		it.Detail = fmt.Sprintf("%d turn(s)", b.Turns)
	default:
		return Item{}, false
	}
	return it, true
}

func ptr[T any](v T) *T { return &v }
