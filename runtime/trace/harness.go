package trace

// The harness records of transport: process (process.md HREC-1). None
// holds an argument value, the bridge's token or a prompt.

// HarnessStart is harness_start: one run of the harness begins.
type HarnessStart struct {
	TaskID     string `json:"task_id"`
	Run        int    `json:"run"`         // 1-based within the task
	Mode       string `json:"mode"`        // new | resume
	PromptKind string `json:"prompt_kind"` // task | continuation | keep_working | done_check | restart
	Harness    string `json:"harness"`     // claude-code | codex
	Binary     string `json:"binary"`      // the absolute path executed
	// Version is the version probe's line; null when none was read.
	Version *string `json:"version"`
	// VersionTested is null when no version was read.
	VersionTested *bool     `json:"version_tested"`
	ToolsOffered  ToolNames `json:"tools_offered"` // BRG-3
	// HarnessSessionID is the session resumed; null on a new one.
	HarnessSessionID *string `json:"harness_session_id"`
}

// HarnessSession is harness_session: the session id a run reported first
// (HEV-4) and how the harness signed in.
type HarnessSession struct {
	TaskID           string `json:"task_id"`
	Run              int    `json:"run"`
	HarnessSessionID string `json:"harness_session_id"`
	Auth             string `json:"auth"` // subscription | api-key | unknown
}

// HarnessWarning is harness_warning: W-RUN-002 (PROC-10) or W-SEC-031
// (HEV-9). It hangs from the task when written during one, else from the
// session.
type HarnessWarning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// HarnessFailed is harness_failed: why a run failed (HEV-7, PROC-14,
// PROC-18).
type HarnessFailed struct {
	TaskID  string `json:"task_id"`
	Run     int    `json:"run"`
	Kind    string `json:"kind"`   // auth | quota | max-turns | canceled | harness-error | other
	Source  string `json:"source"` // harness | runtime
	Message string `json:"message"`
}

// HarnessExit is harness_exit: how a run's process ended, with the turns
// it closed and the tokens it reported (each count only when reported).
type HarnessExit struct {
	TaskID           string  `json:"task_id"`
	Run              int     `json:"run"`
	Cause            string  `json:"cause"` // completed | failed | interrupted | inactivity | crashed
	ExitCode         *int    `json:"exit_code"`
	Signal           *string `json:"signal"`
	DurationMS       int64   `json:"duration_ms"`
	Turns            int     `json:"turns"`
	InputTokens      *int64  `json:"input_tokens,omitempty"`
	OutputTokens     *int64  `json:"output_tokens,omitempty"`
	CachedTokens     *int64  `json:"cached_tokens,omitempty"`
	CacheWriteTokens *int64  `json:"cache_write_tokens,omitempty"`
}

func (HarnessStart) EventType() string   { return "harness_start" }
func (HarnessSession) EventType() string { return "harness_session" }
func (HarnessWarning) EventType() string { return "harness_warning" }
func (HarnessFailed) EventType() string  { return "harness_failed" }
func (HarnessExit) EventType() string    { return "harness_exit" }

func (r HarnessStart) task() string   { return r.TaskID }
func (r HarnessSession) task() string { return r.TaskID }
func (HarnessWarning) task() string   { return "" }
func (r HarnessFailed) task() string  { return r.TaskID }
func (r HarnessExit) task() string    { return r.TaskID }
