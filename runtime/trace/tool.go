package trace

import "encoding/json"

// ToolCall is tool_call (capsule.md §6, tools.md TOOL-9); output only
// under trace.capture content (TRACE-5).
type ToolCall struct {
	Turn        int             `json:"turn"`
	TaskID      string          `json:"task_id"`
	ToolName    string          `json:"tool_name"`
	ToolCallID  *string         `json:"tool_call_id"`
	Input       json.RawMessage `json:"input"`
	InputBytes  int             `json:"input_bytes"`
	Output      *string         `json:"output,omitempty"`
	OutputBytes int             `json:"output_bytes"`
	DurationMS  int64           `json:"duration_ms"`
	Status      string          `json:"status"` // ok | error
	Summary     string          `json:"summary"`
}

// ToolInputRefused is tool_input_refused (capsule.md §6): a call lacking a
// required field never ran.
type ToolInputRefused struct {
	Turn     int      `json:"turn"`
	TaskID   string   `json:"task_id"`
	ToolName string   `json:"tool_name"`
	Missing  []string `json:"missing"`
}

// SkillCall is skill_call (capsule.md §6).
type SkillCall struct {
	Turn        int    `json:"turn"`
	TaskID      string `json:"task_id"`
	SkillName   string `json:"skill_name"`
	OutputBytes int    `json:"output_bytes"`
	DurationMS  int64  `json:"duration_ms"`
	Status      string `json:"status"` // ok | error
}

// Shell is shell (capsule.md §6), written after its tool_call.
type Shell struct {
	Turn        int    `json:"turn"`
	TaskID      string `json:"task_id"`
	Binary      string `json:"binary"`
	Command     string `json:"command"`
	ExitCode    int    `json:"exit_code"` // 128+signal if killed
	StdoutBytes int64  `json:"stdout_bytes"`
	StderrBytes int64  `json:"stderr_bytes"`
	DurationMS  int64  `json:"duration_ms"`
	// ResourceLimit is the capabilities.resources field a sealed command
	// met (max_file_size_bytes, cpu_seconds, cgroup_pids_max,
	// cgroup_memory_bytes), absent when none could be named.
	ResourceLimit string `json:"resource_limit,omitempty"`
}

// ShellDetached is shell_detached (tools.md SHELL-2): it replaces the
// shell record of a command moved to the background.
type ShellDetached struct {
	Turn      int    `json:"turn"`
	TaskID    string `json:"task_id"`
	Binary    string `json:"binary"`
	Command   string `json:"command"`
	WorkID    string `json:"work_id"`
	GraceSecs int64  `json:"grace_secs"`
}

// BackgroundCommand is background_command (tools.md REC-2); waited_secs,
// exit_code and status are null until known.
type BackgroundCommand struct {
	Turn        int     `json:"turn"`
	TaskID      string  `json:"task_id"`
	WorkID      string  `json:"work_id"`
	Operation   string  `json:"operation"` // status | wait | stop
	State       string  `json:"state"`
	ElapsedSecs int64   `json:"elapsed_secs"`
	WaitedSecs  *int64  `json:"waited_secs"`
	ExitCode    *int    `json:"exit_code"`
	Status      *string `json:"status"`
	OutputBytes int64   `json:"output_bytes"`
}

// SessionStatus is session_status (tools.md REC-1): status is the STATUS-1
// object the call returned, as it returned it.
type SessionStatus struct {
	Turn   int             `json:"turn"`
	TaskID string          `json:"task_id"`
	Status json.RawMessage `json:"status"`
}

// DeadlineNotice is deadline_notice (tools.md REC-3).
type DeadlineNotice struct {
	Turn       int    `json:"turn"`
	TaskID     string `json:"task_id"`
	ToolName   string `json:"tool_name"`
	DeadlineAt string `json:"deadline_at"`
	LeftSecs   int64  `json:"left_secs"`
	MarginSecs int64  `json:"margin_secs"`
}

// ArtifactPulled is artifact_pulled (tools.md PULL-6), then where it was
// fetched from and its digest.
type ArtifactPulled struct {
	Turn        int    `json:"turn"`
	TaskID      string `json:"task_id"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	Runtime     string `json:"runtime"`
	Origin      string `json:"origin"`
	Session     string `json:"session"`
	Trust       string `json:"trust"`
	FetchedFrom string `json:"fetched_from"`
	SHA256      string `json:"sha256"`
}

// ControlChange is control_change (tools.md SWD): a switch-driver call set
// the driver choice. It carries no task_id; it hangs from the turn that
// made the call (TRACE-2).
type ControlChange struct {
	Principal   string `json:"principal"` // "agent"
	Kind        string `json:"kind"`      // "setting"
	Name        string `json:"name"`      // "inference.driver"
	Action      string `json:"action"`    // "set"
	Previous    string `json:"previous"`
	Value       string `json:"value"`
	AppliesFrom string `json:"applies_from"` // "next_inference_call"
}

// ControlRefused is control_refused (tools.md SWD-3), parented like
// ControlChange.
type ControlRefused struct {
	Principal string `json:"principal"`
	Status    int    `json:"status"` // 422 | 409
	Reason    string `json:"reason"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
}

func (ToolCall) EventType() string          { return "tool_call" }
func (ToolInputRefused) EventType() string  { return "tool_input_refused" }
func (SkillCall) EventType() string         { return "skill_call" }
func (Shell) EventType() string             { return "shell" }
func (ShellDetached) EventType() string     { return "shell_detached" }
func (BackgroundCommand) EventType() string { return "background_command" }
func (SessionStatus) EventType() string     { return "session_status" }
func (DeadlineNotice) EventType() string    { return "deadline_notice" }
func (ArtifactPulled) EventType() string    { return "artifact_pulled" }
func (ControlChange) EventType() string     { return "control_change" }
func (ControlRefused) EventType() string    { return "control_refused" }

func (r ToolCall) task() string          { return r.TaskID }
func (r ToolInputRefused) task() string  { return r.TaskID }
func (r SkillCall) task() string         { return r.TaskID }
func (r Shell) task() string             { return r.TaskID }
func (r ShellDetached) task() string     { return r.TaskID }
func (r BackgroundCommand) task() string { return r.TaskID }
func (r SessionStatus) task() string     { return r.TaskID }
func (r DeadlineNotice) task() string    { return r.TaskID }
func (r ArtifactPulled) task() string    { return r.TaskID }
func (ControlChange) task() string       { return "" }
func (ControlRefused) task() string      { return "" }
