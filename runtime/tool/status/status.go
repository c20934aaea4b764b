// Package status holds session-status (tools.md §6, STATUS-1): what the
// session has used and has left, measured at the call from a Snapshot the
// session takes.
//
// # Example
//
//	impl[tool.NameSessionStatus] = status.New(func(cc *tool.CallContext) status.Snapshot {
//		return measure(cc)
//	})
package status

import (
	"context"
	"encoding/json"
	"time"

	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

const statusDescription = "Reports the time this session has run and has left, the running task's turns, its context, the tokens used and the spend ceiling, measured now. Takes no input."

// The session-status vocabulary is runtime/tool's, so that a session can
// measure itself without naming this package.
type (
	Counter      = tool.StatusCounter
	ContextInfo  = tool.ContextInfo
	Snapshot     = tool.StatusSnapshot
	QuotaWindow  = tool.QuotaWindow
	MachineSpend = tool.MachineSpend
)

// The quota states a harness reports.
const (
	QuotaOK        = tool.QuotaOK
	QuotaWarning   = tool.QuotaWarning
	QuotaExhausted = tool.QuotaExhausted
)

// New returns the session-status tool; snapshot measures the session.
func New(snapshot func(cc *tool.CallContext) Snapshot) tool.Tool {
	return &statusTool{snap: snapshot}
}

type statusTool struct {
	snap func(cc *tool.CallContext) Snapshot
}

func (t *statusTool) Spec() tool.Spec {
	return tool.Spec{Name: tool.NameSessionStatus, Description: statusDescription, InputSchema: json.RawMessage(tool.EmptySchema), Kind: tool.KindRuntime}
}

func (t *statusTool) Call(_ context.Context, cc *tool.CallContext, _ json.RawMessage) tool.Result {
	data := tool.JSON(Object(t.snap(cc)))
	return tool.Result{
		Status:  tool.Passed,
		Summary: tool.NameSessionStatus + ": passed",
		Data:    data,
		Records: []tool.Rec{{Record: trace.SessionStatus{Turn: cc.Turn, TaskID: cc.TaskID, Status: json.RawMessage(data)}}},
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
	return reportCounter{Used: c.Used, Left: max(c.Limit-c.Used, 0)}
}

// Report is STATUS-1's object, keys in its order: time, turns,
// keep_working, done_check, context, (quota: never under http), tokens,
// spend. A value not measured or not configured holds "unknown" or
// "none" instead (the fields typed any).
type Report struct {
	Time        reportTime    `json:"time"`
	Turns       reportTurns   `json:"turns"`
	KeepWorking any           `json:"keep_working"` // StatusCounter or "none"
	DoneCheck   any           `json:"done_check"`   // StatusCounter or "none"
	Context     any           `json:"context"`      // StatusContext or "unknown"
	Quota       []QuotaWindow `json:"quota,omitempty"`
	Tokens      reportTokens  `json:"tokens"`
	Spend       reportSpend   `json:"spend"`
}

// StatusTime is STATUS-1's time.
type reportTime struct {
	ElapsedSecs     int64 `json:"elapsed_secs"`
	TaskElapsedSecs any   `json:"task_elapsed_secs"` // int64 or "unknown"
	Deadline        any   `json:"deadline"`          // StatusDeadline or "none"
}

// StatusDeadline is STATUS-1's time.deadline.
type reportDeadline struct {
	At       string `json:"at"`
	LeftSecs int64  `json:"left_secs"`
}

// StatusTurns is STATUS-1's turns.
type reportTurns struct {
	Used int `json:"used"`
	Cap  any `json:"cap"` // int or "none"
}

// StatusCounter is STATUS-1's keep_working and done_check.
type reportCounter struct {
	Used int `json:"used"`
	Left int `json:"left"`
}

// StatusContext is STATUS-1's context.
type reportContext struct {
	UsedTokens   int64  `json:"used_tokens"`
	WindowTokens any    `json:"window_tokens"` // int64 or "none"
	BudgetTokens any    `json:"budget_tokens"` // int64 or "none"
	BudgetBasis  string `json:"budget_basis"`
	MeasuredBy   string `json:"measured_by"` // estimate | actual
}

// StatusTokens is STATUS-1's tokens: provider-reported sums, or "unknown".
type reportTokens struct {
	Input           any `json:"input"`
	Output          any `json:"output"`
	Cached          any `json:"cached"`
	CacheWrite      any `json:"cache_write"`
	UnreportedCalls int `json:"unreported_calls"`
}

// StatusSpend is STATUS-1's spend.
type reportSpend struct {
	Tokens  int64 `json:"tokens"`
	Ceiling any   `json:"ceiling"` // int64 or "none"
	Machine any   `json:"machine"` // MachineSpend or "none"
}

// Object builds STATUS-1's object from a snapshot.
func Object(s Snapshot) Report {
	r := Report{
		Time:        reportTime{ElapsedSecs: secs(s.Now.Sub(s.SessionStart)), TaskElapsedSecs: "unknown", Deadline: "none"},
		Turns:       reportTurns{Used: s.TurnsUsed, Cap: orNone(s.MaxTurns)},
		KeepWorking: counter(s.KeepWorking),
		DoneCheck:   counter(s.DoneCheck),
		Context:     "unknown",
		Quota:       s.Quota,
		Tokens: reportTokens{Input: orUnknown(s.Input), Output: orUnknown(s.Output),
			Cached: orUnknown(s.Cached), CacheWrite: orUnknown(s.CacheWrite), UnreportedCalls: s.Unreported},
		Spend: reportSpend{Tokens: s.SpendTokens, Ceiling: orNone(s.Ceiling), Machine: orNone(s.Machine)},
	}
	if s.TaskStart != nil {
		r.Time.TaskElapsedSecs = secs(s.Now.Sub(*s.TaskStart))
	}
	if s.Deadline != nil {
		r.Time.Deadline = reportDeadline{At: tool.FormatDeadline(*s.Deadline), LeftSecs: tool.LeftSecs(*s.Deadline, s.Now)}
	}
	if c := s.Context; c != nil {
		ctx := reportContext{UsedTokens: c.UsedTokens, WindowTokens: "none", BudgetTokens: "none", BudgetBasis: "none", MeasuredBy: "estimate"}
		if c.WindowTokens > 0 {
			ctx.WindowTokens, ctx.BudgetTokens, ctx.BudgetBasis = c.WindowTokens, c.BudgetTokens, c.BudgetBasis
		}
		if c.Actual {
			ctx.MeasuredBy = "actual"
		}
		r.Context = ctx
	}
	return r
}
