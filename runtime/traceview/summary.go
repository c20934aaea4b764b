package traceview

import "github.com/murmur-go/mur/runtime/trace"

// Summary is `mur trace show --json` (docs/json.md): what Render shows,
// uncut, as one JSON document. The lists hold the trace's own records
// (runtime/trace types, their trace field names); a list with no record is
// [], never null.
type Summary struct {
	SessionID      string   `json:"session_id"`
	Trace          string   `json:"trace"` // the trace.jsonl read
	CapsuleName    string   `json:"capsule_name"`
	CapsuleVersion string   `json:"capsule_version"`
	Model          *string  `json:"model"`  // null: a harness on its own default (process.md HREC-4)
	Status         string   `json:"status"` // session_end.exit_status; "running" while live
	Live           bool     `json:"live"`   // no session_end yet
	DurationMS     int64    `json:"duration_ms"`
	Capabilities   []string `json:"capabilities"`
	Tools          []string `json:"tools"`
	FormationID    string   `json:"formation_id,omitempty"`
	ResumedFrom    string   `json:"resumed_from,omitempty"` // session_start.resumed_from: the session mur run --resume continued
	Turns          int      `json:"turns"`
	MaxTurns       int      `json:"max_turns"`
	Tokens         Tokens   `json:"tokens"`

	ToolCalls   ToolCalls            `json:"tool_calls"`
	ShellCalls  ShellCalls           `json:"shell_calls"`
	Failed      []trace.TaskFailed   `json:"failed"`
	Canceled    []trace.TaskCanceled `json:"canceled"`
	Rejected    []trace.TaskRejected `json:"rejected"`
	Reopens     []trace.TaskReopened `json:"reopens"`
	MemberCalls []trace.MemberCall   `json:"member_calls"`
	Delegations []trace.Delegation   `json:"delegations"`
	Tasks       []trace.TaskEnd      `json:"tasks"`
	Inferences  []trace.Inference    `json:"inferences"`
	Input       Input                `json:"input"`
	PeerFiles   PeerFiles            `json:"peer_files"`
	Hooks       Hooks                `json:"hooks"`
	Compaction  Compaction           `json:"compaction"`
}

// Compaction is the compaction records: each conversation replaced
// (compaction, a harness's own among them) and each check declined.
type Compaction struct {
	Compacted []trace.Compaction         `json:"compacted"`
	Declined  []trace.CompactionDeclined `json:"declined"`
}

// Hooks are the hooks' records: their denials (call_denied), faults
// (hook_dispatch_error) and seeds (context_seed). Their reopens are in
// Reopens, their run-inference calls in Inferences (origin hook:<name>).
type Hooks struct {
	Denied []trace.CallDenied        `json:"denied"`
	Faults []trace.HookDispatchError `json:"faults"`
	Seeds  []trace.ContextSeed       `json:"seeds"`
}

// Tokens are the session's token counts: the runtime's estimates (DRV-8)
// and, summed over the inference records that carry them, what the provider
// reported (absent when no record did), cached and cache-write input tokens
// among them.
type Tokens struct {
	Input          int64  `json:"input"`
	Output         int64  `json:"output"`
	Total          int64  `json:"total"`
	ProviderInput  *int64 `json:"provider_input,omitempty"`
	ProviderOutput *int64 `json:"provider_output,omitempty"`
	Cached         *int64 `json:"cached,omitempty"`
	CacheWrite     *int64 `json:"cache_write,omitempty"`
}

// ToolCalls are the tool_call records and their tally.
type ToolCalls struct {
	Count int              `json:"count"`
	OK    int              `json:"ok"`
	Error int              `json:"error"`
	AvgMS int64            `json:"avg_ms"`
	Calls []trace.ToolCall `json:"calls"`
}

// ShellCalls are the shell records; Count adds shell_detached (TRACE-4).
type ShellCalls struct {
	Count int           `json:"count"`
	Calls []trace.Shell `json:"calls"`
}

// Summarize returns tr as a Summary.
func Summarize(tr *Trace) Summary {
	s, e := tr.Start, tr.End
	out := Summary{SessionID: tr.SessionID, Trace: tr.Path, CapsuleName: s.CapsuleName, CapsuleVersion: s.CapsuleVersion,
		Model: s.Model, Status: e.ExitStatus, DurationMS: duration(tr), Live: tr.Live, Capabilities: nonNil(s.Capabilities),
		Tools: nonNil([]string(s.ToolsDeclared)), FormationID: s.FormationID, ResumedFrom: deref(s.ResumedFrom), Turns: e.TotalTurns, MaxTurns: s.MaxTurns,
		Tokens:     Tokens{Input: e.TotalInputTokens, Output: e.TotalOutputTokens, Total: e.TotalInputTokens + e.TotalOutputTokens},
		ToolCalls:  ToolCalls{Count: len(tr.ToolCalls), Calls: nonNil(tr.ToolCalls)},
		ShellCalls: ShellCalls{Count: len(tr.Shells) + tr.Detached, Calls: nonNil(tr.Shells)},
		Failed:     nonNil(tr.Failed), Canceled: nonNil(tr.Canceled), Rejected: nonNil(tr.Rejected),
		Reopens: nonNil(tr.Reopened), MemberCalls: nonNil(tr.MemberCalls), Delegations: nonNil(tr.Delegations), Tasks: nonNil(tr.TaskEnds),
		Inferences: nonNil(tr.Inferences),
		Input:      Input{Requests: nonNil(tr.Input.Requests), Replies: nonNil(tr.Input.Replies), Timeouts: nonNil(tr.Input.Timeouts)},
		PeerFiles:  PeerFiles{Mints: nonNil(tr.PeerFiles.Mints), Redeems: nonNil(tr.PeerFiles.Redeems), Fetches: nonNil(tr.PeerFiles.Fetches)},
		Hooks:      Hooks{Denied: nonNil(tr.Hooks.Denied), Faults: nonNil(tr.Hooks.Faults), Seeds: nonNil(tr.Hooks.Seeds)},
		Compaction: Compaction{Compacted: []trace.Compaction{}, Declined: []trace.CompactionDeclined{}}}
	for _, r := range tr.Compactions {
		switch c := r.(type) {
		case trace.Compaction:
			out.Compaction.Compacted = append(out.Compaction.Compacted, c)
		case trace.CompactionDeclined:
			out.Compaction.Declined = append(out.Compaction.Declined, c)
		}
	}
	for _, inf := range tr.Inferences {
		add(&out.Tokens.ProviderInput, inf.InputTokensActual)
		add(&out.Tokens.ProviderOutput, inf.OutputTokensActual)
		add(&out.Tokens.Cached, inf.CachedTokens)
		add(&out.Tokens.CacheWrite, inf.CacheWriteTokens)
	}
	var sum int64
	for _, c := range tr.ToolCalls {
		if c.Status == "ok" {
			out.ToolCalls.OK++
		}
		sum += c.DurationMS
	}
	out.ToolCalls.Error = out.ToolCalls.Count - out.ToolCalls.OK
	if n := int64(out.ToolCalls.Count); n > 0 {
		out.ToolCalls.AvgMS = sum / n
	}
	return out
}

// add adds *v to *total, making total when v is the first reported value.
func add(total **int64, v *int64) {
	if v == nil {
		return
	}
	if *total == nil {
		*total = new(int64)
	}
	**total += *v
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// deref is *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
