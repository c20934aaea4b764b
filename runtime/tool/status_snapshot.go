package tool

import "time"

// StatusCounter is a lifecycle option's use in the running task (keep_working, done_check).
type StatusCounter struct{ Used, Limit int }

// ContextInfo is what the compaction check last measured (STATUS-1
// context): the figures it compared, exactly.
type ContextInfo struct {
	UsedTokens   int64  // the conversation's size: the last call's input + output
	WindowTokens int64  // the window the budget came from; 0 = the choice has none
	BudgetTokens int64  // the input budget (driver.Budget); read only with a window
	BudgetBasis  string // which limit set it
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
	KeepWorking  *StatusCounter
	DoneCheck    *StatusCounter
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
