package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/murmur-go/mur/runtime/trace"
)

const statusSchema = `{"type":"object","properties":{}}`

const statusDescription = "Reports the time this session has run and has left, the running task's turns, its context, the tokens used and the spend ceiling, measured now. Takes no input."

// Counter is a lifecycle option's use in the running task (keep_working, done_check).
type Counter struct{ Used, Limit int }

// ContextInfo is what the last inference call measured (STATUS-1 context).
type ContextInfo struct {
	UsedTokens   int64  // the last call's input + output
	WindowTokens *int64 // the serving choice's config.context_window_tokens
	MaxInput     *int64 // its config.max_input_tokens
	MaxTokens    int64  // the output cap the last call sent
	Actual       bool   // the provider counted both
}

// StatusSnapshot is everything session-status reports, measured at the call
// (STATUS-1). Nil pointers read "none" (limits) or "unknown" (counts).
type StatusSnapshot struct {
	Now          time.Time
	SessionStart time.Time
	TaskStart    *time.Time // nil outside a task
	Deadline     *time.Time
	TurnsUsed    int
	MaxTurns     *int
	KeepWorking  *Counter
	DoneCheck    *Counter
	Context      *ContextInfo // nil before the first turn
	Input        *int64       // provider-reported sums; nil if no record carried one
	Output       *int64
	Cached       *int64
	CacheWrite   *int64
	Unreported   int   // inference records with no count
	SpendTokens  int64 // LOOP-18's used
	Ceiling      *int64
	// Quota is [P] only (transport: process, LATER): absent under http.
	Quota []QuotaWindow
	// Machine is spend.machine (spend.machine_tokens_per_day, LATER); nil
	// reads "none", always in the first release.
	Machine *MachineSpend
}

// QuotaWindow is one STATUS-1 quota entry a harness reported ([P], LATER);
// nil fields were not reported and are left out.
type QuotaWindow struct {
	Name          string   `json:"name"`
	Used          *float64 `json:"used,omitempty"` // 0–1
	ResetsAt      string   `json:"resets_at,omitempty"`
	WindowMinutes *int     `json:"window_minutes,omitempty"`
	State         string   `json:"state,omitempty"` // QuotaOK, QuotaWarning, QuotaExhausted
}

// The quota states a harness reports.
const (
	QuotaOK        = "ok"
	QuotaWarning   = "warning"
	QuotaExhausted = "exhausted"
)

// MachineSpend is spend.machine: this machine's day total against its ceiling.
type MachineSpend struct {
	TokensToday int64 `json:"tokens_today"`
	Ceiling     int64 `json:"ceiling"`
}

// SessionStatus returns the session-status tool; snapshot measures the session.
func SessionStatus(snapshot func(cc *CallContext) StatusSnapshot) Tool {
	return &statusTool{snap: snapshot}
}

type statusTool struct {
	snap func(cc *CallContext) StatusSnapshot
}

func (t *statusTool) Spec() Spec {
	return Spec{Name: NameSessionStatus, Description: statusDescription, InputSchema: json.RawMessage(statusSchema), Kind: KindRuntime}
}

func (t *statusTool) Call(_ context.Context, cc *CallContext, _ json.RawMessage) Result {
	obj := StatusObject(t.snap(cc))
	return Result{
		Status:  Passed,
		Summary: NameSessionStatus + ": passed",
		Data:    JSON(obj),
		Records: []Rec{{Type: "session_status", Fields: []trace.F{
			{K: "turn", V: cc.Turn}, {K: "task_id", V: cc.TaskID}, {K: "status", V: obj},
		}}},
	}
}

func secs(d time.Duration) int64 {
	if d < 0 {
		return 0
	}
	return int64(d / time.Second)
}

func orNone[T any](p *T) any {
	if p == nil {
		return "none"
	}
	return *p
}

func orUnknown[T any](p *T) any {
	if p == nil {
		return "unknown"
	}
	return *p
}

func counter(c *Counter) any {
	if c == nil {
		return "none"
	}
	return trace.Obj{{K: "used", V: c.Used}, {K: "left", V: max(c.Limit-c.Used, 0)}}
}

// StatusObject builds STATUS-1's object, keys in its order (ours): time,
// turns, keep_working, done_check, context, (quota: never under http),
// tokens, spend.
func StatusObject(s StatusSnapshot) trace.Obj {
	var taskElapsed any = "unknown"
	if s.TaskStart != nil {
		taskElapsed = secs(s.Now.Sub(*s.TaskStart))
	}
	var deadline any = "none"
	if s.Deadline != nil {
		deadline = trace.Obj{{K: "at", V: FormatDeadline(*s.Deadline)}, {K: "left_secs", V: LeftSecs(*s.Deadline, s.Now)}}
	}
	var ctxObj any = "unknown"
	if c := s.Context; c != nil {
		var window, budget, basis any = "none", "none", "none"
		if c.WindowTokens != nil {
			window = *c.WindowTokens
			b, bs := *c.WindowTokens-c.MaxTokens, "context_window_less_output_cap"
			if c.MaxInput != nil && *c.MaxInput < b {
				b, bs = *c.MaxInput, "max_input_tokens"
			}
			budget, basis = b, bs
		}
		measured := "estimate"
		if c.Actual {
			measured = "actual"
		}
		ctxObj = trace.Obj{
			{K: "used_tokens", V: c.UsedTokens}, {K: "window_tokens", V: window},
			{K: "budget_tokens", V: budget}, {K: "budget_basis", V: basis}, {K: "measured_by", V: measured},
		}
	}
	var machine any = "none"
	if s.Machine != nil {
		machine = *s.Machine
	}
	obj := trace.Obj{
		{K: "time", V: trace.Obj{
			{K: "elapsed_secs", V: secs(s.Now.Sub(s.SessionStart))},
			{K: "task_elapsed_secs", V: taskElapsed},
			{K: "deadline", V: deadline},
		}},
		{K: "turns", V: trace.Obj{{K: "used", V: s.TurnsUsed}, {K: "cap", V: orNone(s.MaxTurns)}}},
		{K: "keep_working", V: counter(s.KeepWorking)},
		{K: "done_check", V: counter(s.DoneCheck)},
		{K: "context", V: ctxObj},
	}
	if len(s.Quota) > 0 {
		obj = append(obj, trace.F{K: "quota", V: s.Quota})
	}
	return append(obj,
		trace.F{K: "tokens", V: trace.Obj{
			{K: "input", V: orUnknown(s.Input)}, {K: "output", V: orUnknown(s.Output)},
			{K: "cached", V: orUnknown(s.Cached)}, {K: "cache_write", V: orUnknown(s.CacheWrite)},
			{K: "unreported_calls", V: s.Unreported},
		}},
		trace.F{K: "spend", V: trace.Obj{
			{K: "tokens", V: s.SpendTokens}, {K: "ceiling", V: orNone(s.Ceiling)}, {K: "machine", V: machine},
		}},
	)
}
