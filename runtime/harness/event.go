package harness

import "github.com/murmur-go/mur/runtime/tool"

// Event is one thing a run's event stream reports (process.md HEV-1, HEV-2),
// as a dialect's Parser reads it from the harness's stdout. The set is
// sealed: SessionReported, TurnOpened, ToolCalled, TurnClosed,
// QuotaReported, BridgeFailed, Compacted, Completed, Failed and Notice.
type Event interface{ event() }

// Auth values of harness_session.auth (HREC-1).
const (
	AuthSubscription = "subscription"
	AuthAPIKey       = "api-key"
	AuthUnknown      = "unknown"
)

// SessionReported is the harness session id, when the run first names it
// (HEV-4), with how it signed in (HEV-1: claude's apiKeySource; codex
// reports none, AuthUnknown).
type SessionReported struct {
	ID   string
	Auth string
}

// TurnOpened is a new turn (HEV-3): a claude message id, a codex tool-call
// item, or codex's answer.
type TurnOpened struct {
	ID string // harness_turn_id: claude message.id, codex item id
}

// ToolCalled is a tool call the open turn shows (a claude tool_use block, a
// codex mcp_tool_call item): the turn's decision is tool_call (PROC-14).
type ToolCalled struct {
	TurnID string
	// CallID is the stream's id of the call: claude's tool_use id (the
	// bridged call's claudecode/toolUseId); codex's item id, which its
	// bridged call does not carry.
	CallID string
	// Name is the bridge's tool name (claude's mcp__mur__ prefix removed).
	Name string
}

// TurnClosed is the end of the open turn (HEV-3).
type TurnClosed struct {
	ID string
}

// closeTurn appends TurnClosed for the open turn *open names, if any, and
// clears it: a parser's turn ends (HEV-1, HEV-3).
func closeTurn(open *string, evs []Event) []Event {
	if *open != "" {
		evs = append(evs, TurnClosed{ID: *open})
		*open = ""
	}
	return evs
}

// QuotaReported is claude's rate-limit windows (HEV-6), already mapped to
// session-status quota entries.
type QuotaReported struct {
	Windows []tool.QuotaWindow
}

// BridgeFailed is a harness that reports it could not use the loopback
// tool server (HEV-8).
type BridgeFailed struct{}

// Completed is a terminal success line (HEV-1 result with is_error false,
// HEV-2 turn.completed): the run's answer and its token counts.
type Completed struct {
	Answer string
	Usage  Usage
}

// Failed is a terminal failure line (HEV-7): its kind and message.
type Failed struct {
	Kind    string // FailAuth, FailQuota, FailMaxTurns, FailCanceled, FailHarness
	Message string
	Usage   Usage
}

// Compacted is the harness compacting its own conversation (claude's
// system compact_boundary): why ("auto", "manual") and its count of the
// conversation before.
type Compacted struct {
	Trigger   string
	PreTokens int64
}

// Notice is a non-fatal line the harness log keeps (codex's item error).
type Notice struct {
	Text string
}

func (SessionReported) event() {}
func (TurnOpened) event()      {}
func (ToolCalled) event()      {}
func (TurnClosed) event()      {}
func (QuotaReported) event()   {}
func (Compacted) event()       {}
func (BridgeFailed) event()    {}
func (Completed) event()       {}
func (Failed) event()          {}
func (Notice) event()          {}

// Failure kinds of harness_failed and E-RUN-033 (HEV-7).
const (
	FailAuth     = "auth"
	FailQuota    = "quota"
	FailMaxTurns = "max-turns"
	FailCanceled = "canceled"
	FailHarness  = "harness-error"
	FailOther    = "other"
)

// Usage is a run's token counts as the harness reports them (HEV-5); a nil
// field was not reported. For codex they are the thread's running total.
type Usage struct {
	Input, Output, Cached, CacheWrite *int64
}

// Reported reports whether any count was reported.
func (u Usage) Reported() bool {
	return u.Input != nil || u.Output != nil || u.Cached != nil || u.CacheWrite != nil
}

// Parser reads one run's stdout (HEV-1, HEV-2). Line takes each line in
// order and returns the events it makes; End is called once stdout closed
// and returns what closing the stream makes (the open turn closed). A
// Parser is used by one goroutine.
type Parser interface {
	Line(line []byte) []Event
	End() []Event
}
