package trace

import "github.com/murmur-go/mur/a2a"

// TaskStart is task_start (capsule.md §6); caller_member only when a
// member token admitted the task (TRC-3).
type TaskStart struct {
	TaskID            string `json:"task_id"`
	ContextID         string `json:"context_id"`
	Source            string `json:"source"` // a2a | task_md | detached_shell
	Origin            string `json:"origin"`
	Trust             string `json:"trust"` // trusted | untrusted
	Lane              string `json:"lane"`
	MessagePartsBytes int    `json:"message_parts_bytes"`
	CallerMember      string `json:"caller_member,omitzero"`
}

// Inference is one agent inference record (capsule.md §6): the turn node
// of TRACE-2. The provider counts are present only when reported; the
// TRACE-5 fields only under trace.capture meta or content.
type Inference struct {
	Turn               int     `json:"turn"` // 0-based within the task
	TaskID             string  `json:"task_id"`
	Choice             string  `json:"choice"`
	InputTokens        int64   `json:"input_tokens"`
	OutputTokens       int64   `json:"output_tokens"`
	Decision           string  `json:"decision"` // tool_call | end_turn | text
	StopReason         string  `json:"stop_reason"`
	ToolName           *string `json:"tool_name"`   // the first requested, or null
	DurationMS         int64   `json:"duration_ms"` // the driver call, retries and waits included
	InputTokensActual  *int64  `json:"input_tokens_actual,omitempty"`
	OutputTokensActual *int64  `json:"output_tokens_actual,omitempty"`
	CachedTokens       *int64  `json:"cached_tokens,omitempty"`
	CacheWriteTokens   *int64  `json:"cache_write_tokens,omitempty"`
	// Origin is "hook:<name>" for a hook's run-inference call, absent for
	// an agent turn.
	Origin string `json:"origin,omitzero"`
	*Capture
	// HarnessTurnID is set under transport: process only (HREC-2): the
	// harness's id of the turn (claude message.id, codex item id). Such a
	// record has no choice, stop_reason, *_actual or TRACE-5 field.
	HarnessTurnID string `json:"harness_turn_id,omitzero"`
}

// inferenceHarness is an Inference's payload under transport: process
// (HREC-2), in the spec's field order.
type inferenceHarness struct {
	Turn          int     `json:"turn"`
	TaskID        string  `json:"task_id"`
	InputTokens   int64   `json:"input_tokens"`
	OutputTokens  int64   `json:"output_tokens"`
	Decision      string  `json:"decision"`
	ToolName      *string `json:"tool_name"`
	HarnessTurnID string  `json:"harness_turn_id"`
}

// MarshalJSON writes an agent inference record, or under transport:
// process (HarnessTurnID set) HREC-2's shape.
func (r Inference) MarshalJSON() ([]byte, error) {
	if r.HarnessTurnID == "" {
		type plain Inference // the same fields, without this method
		return a2a.Marshal(plain(r))
	}
	return a2a.Marshal(inferenceHarness{Turn: r.Turn, TaskID: r.TaskID, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
		Decision: r.Decision, ToolName: r.ToolName, HarnessTurnID: r.HarnessTurnID})
}

// Capture is TRACE-5's meta fields of an inference record: lowercase hex
// sha256 of the bytes sent and received.
type Capture struct {
	MessageIDs  []string `json:"message_ids"`
	SystemSHA   string   `json:"system_sha"`
	ToolsSHA    string   `json:"tools_sha"`
	ResponseSHA string   `json:"response_sha"`
	MessageSHAs []string `json:"message_shas"`
}

// TaskEnd is task_end (capsule.md §6); keep_working and done_check only
// when configured, running_commands only when some still run.
type TaskEnd struct {
	TaskID          string           `json:"task_id"`
	ExitStatus      string           `json:"exit_status"` // LOOP-5
	DurationMS      int64            `json:"duration_ms"`
	Turns           int              `json:"turns"`
	InputTokens     int64            `json:"input_tokens"`
	OutputTokens    int64            `json:"output_tokens"`
	ToolCalls       int              `json:"tool_calls"`
	ShellCalls      int              `json:"shell_calls"`
	ReopenCount     int              `json:"reopen_count"`
	KeepWorking     *TaskKeepWorking `json:"keep_working,omitempty"`
	DoneCheck       *TaskDoneCheck   `json:"done_check,omitempty"`
	RunningCommands []string         `json:"running_commands,omitempty"`
}

// TaskKeepWorking is task_end.keep_working (LOOP-13).
type TaskKeepWorking struct {
	Used      int     `json:"used"`
	StoppedBy *string `json:"stopped_by"` // limit | max_turns | spend_ceiling | deadline, or null
}

// TaskDoneCheck is task_end.done_check (LOOP-14).
type TaskDoneCheck struct {
	Runs    int     `json:"runs"`
	Reopens int     `json:"reopens"`
	Outcome *string `json:"outcome"` // null before a run
}

// TaskFailed is task_failed (capsule.md §6, LOOP-19).
type TaskFailed struct {
	TaskID string `json:"task_id"`
	Turn   int    `json:"turn"`
	Cause  string `json:"cause"`
	Reason string `json:"reason"`
}

// TaskCanceled is task_canceled (LOOP-16); turn is null for a task
// canceled while queued.
type TaskCanceled struct {
	TaskID          string   `json:"task_id"`
	Turn            *int     `json:"turn"`
	Phase           string   `json:"phase"`
	DetachedWorkIDs []string `json:"detached_work_ids"`
	DelegationIDs   []string `json:"delegation_ids"`
}

// TaskReopened is task_reopened (capsule.md §6, LOOP-14).
type TaskReopened struct {
	TaskID         string  `json:"task_id"`
	HookName       string  `json:"hook_name"`
	Reason         string  `json:"reason"`
	ReopenNumber   int     `json:"reopen_number"`
	AttemptContext *string `json:"attempt_context"`
	TurnsRemaining int     `json:"turns_remaining"`
}

// TaskContinued is task_continued (tools.md RND-2).
type TaskContinued struct {
	TaskID             string   `json:"task_id"`
	ContinuationNumber int      `json:"continuation_number"`
	MemberCalls        []string `json:"member_calls"` // ids delivered, arrival order
	Delegations        []string `json:"delegations"`
	WaitedMS           int64    `json:"waited_ms"`
	TurnsRemaining     int      `json:"turns_remaining"`
}

// KeepWorking is keep_working (LOOP-13).
type KeepWorking struct {
	TaskID string `json:"task_id"`
	Used   int    `json:"used"`
	Left   int    `json:"left"`
}

// DoneCheck is done_check (LOOP-14).
type DoneCheck struct {
	TaskID      string `json:"task_id"`
	Run         int    `json:"run"`
	Outcome     string `json:"outcome"`
	ExitCode    *int   `json:"exit_code"`
	DurationMS  int64  `json:"duration_ms"`
	OutputBytes int64  `json:"output_bytes"`
}

// SpendCeilingReached is spend_ceiling_reached (LOOP-18).
type SpendCeilingReached struct {
	Turn      int    `json:"turn"`
	TaskID    string `json:"task_id"`
	Limit     string `json:"limit"` // "session"
	Ceiling   int64  `json:"ceiling"`
	Used      int64  `json:"used"`
	Requested int64  `json:"requested"`
}

// ControlApplied is control_applied (tools.md SWD): the driver choice a
// switch-driver call set takes effect on this turn.
type ControlApplied struct {
	Turn     int    `json:"turn"`
	TaskID   string `json:"task_id"`
	Name     string `json:"name"`
	Value    string `json:"value"`
	ChangeID string `json:"change_id"` // the control_change record's event id
}

// ToolsRefreshed is tools_refreshed (tools.md PULL-6, REC-4).
type ToolsRefreshed struct {
	Trigger string   `json:"trigger"` // "agent"
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Tools   []string `json:"tools"` // sorted
	Turn    int      `json:"turn"`
	TaskID  string   `json:"task_id"`
}

func (TaskStart) EventType() string           { return "task_start" }
func (Inference) EventType() string           { return "inference" }
func (TaskEnd) EventType() string             { return "task_end" }
func (TaskFailed) EventType() string          { return "task_failed" }
func (TaskCanceled) EventType() string        { return "task_canceled" }
func (TaskReopened) EventType() string        { return "task_reopened" }
func (TaskContinued) EventType() string       { return "task_continued" }
func (KeepWorking) EventType() string         { return "keep_working" }
func (DoneCheck) EventType() string           { return "done_check" }
func (SpendCeilingReached) EventType() string { return "spend_ceiling_reached" }
func (ControlApplied) EventType() string      { return "control_applied" }
func (ToolsRefreshed) EventType() string      { return "tools_refreshed" }

func (r TaskStart) task() string           { return r.TaskID }
func (r Inference) task() string           { return r.TaskID }
func (r TaskEnd) task() string             { return r.TaskID }
func (r TaskFailed) task() string          { return r.TaskID }
func (r TaskCanceled) task() string        { return r.TaskID }
func (r TaskReopened) task() string        { return r.TaskID }
func (r TaskContinued) task() string       { return r.TaskID }
func (r KeepWorking) task() string         { return r.TaskID }
func (r DoneCheck) task() string           { return r.TaskID }
func (r SpendCeilingReached) task() string { return r.TaskID }
func (r ControlApplied) task() string      { return r.TaskID }
func (r ToolsRefreshed) task() string      { return r.TaskID }
