package trace

import (
	"bytes"
	"encoding/json"
)

// SessionStart is session_start (capsule.md §6), then a member's
// formations.md TRC-1 fields.
type SessionStart struct {
	CapsuleName        string            `json:"capsule_name"`
	CapsuleVersion     string            `json:"capsule_version"`
	Model              *string           `json:"model"` // the primary choice's; under process inference.model, null when unset (HREC-4)
	MaxTurns           int               `json:"max_turns"`
	MaxSessionTokens   *int64            `json:"max_session_tokens"` // null when unset
	Capabilities       []string          `json:"capabilities"`       // ⊆ network, filesystem, shell
	ToolsDeclared      ToolNames         `json:"tools_declared"`
	InferenceChoices   []InferenceChoice `json:"inference_choices"`
	CredentialSource   string            `json:"credential_source"` // the primary choice's
	SystemPromptSource string            `json:"system_prompt_source"`
	SystemPromptSHA256 *string           `json:"system_prompt_sha256"`
	ResumedFrom        *string           `json:"resumed_from"`
	ContextID          *string           `json:"context_id"`
	ContainmentDecl    string            `json:"containment_declared"`
	ContainmentAchv    string            `json:"containment_achieved"`
	EffectiveGrants    Grants            `json:"effective_grants"`
	Lifecycle          Lifecycle         `json:"lifecycle"`
	Deadline           *string           `json:"deadline"`  // RFC 3339, null without one
	Transport          string            `json:"transport"` // http | process (HREC-4)
	// TRC-1: a member's formation_id; a launcher-started member's name and
	// callees. Absent on a capsule outside a formation.
	FormationID      string   `json:"formation_id,omitzero"`
	FormationMember  string   `json:"formation_member,omitzero"`
	FormationCallees []string `json:"formation_callees,omitzero"`
	// A delegated child's spawner session and delegation (tools.md DLG-9);
	// absent on a capsule nobody delegated to.
	SpawnedBy    string `json:"spawned_by,omitzero"`
	DelegationID string `json:"delegation_id,omitzero"`
}

// ToolNames is session_start.tools_declared: tool names. Reading also takes
// an object with a name for an entry.
type ToolNames []string

// UnmarshalJSON reads an array of names or of objects with a name.
func (n *ToolNames) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		*n = nil
		return nil
	}
	out := ToolNames{}
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out = append(out, s)
			continue
		}
		var o struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(r, &o); err != nil {
			return err
		}
		if o.Name != "" {
			out = append(out, o.Name)
		}
	}
	*n = out
	return nil
}

// InferenceChoice is one session_start.inference_choices entry (MAN-8).
type InferenceChoice struct {
	Name             string `json:"name"`
	Kind             string `json:"kind"`
	Model            string `json:"model"`
	Available        bool   `json:"available"`
	CredentialSource string `json:"credential_source"`
}

// UnmarshalJSON reads an object, or a bare string as the choice's name.
func (c *InferenceChoice) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '"' {
		*c = InferenceChoice{}
		return json.Unmarshal(data, &c.Name)
	}
	type plain InferenceChoice
	return json.Unmarshal(data, (*plain)(c))
}

// Grants is session_start.effective_grants (capsule.md §6).
type Grants struct {
	NetworkAllow    []string      `json:"network_allow"`
	ShellAllow      []string      `json:"shell_allow"`
	SpawnAllow      []string      `json:"spawn_allow"`
	PeerFetchAllow  []string      `json:"peer_fetch_allow"`
	FilesystemScope *string       `json:"filesystem_scope"`
	ReadOnlyPaths   []string      `json:"read_only_paths"`
	ExportsFiles    *ExportsFiles `json:"exports_files"`
	PeerFiles       *PeerFiles    `json:"peer_files"`
	PeerTasksAccept bool          `json:"peer_tasks_accept"`
	Install         *Install      `json:"install"`
	EnvAllow        []string      `json:"env_allow"` // capabilities.env.allow (HREC-4)
}

// ExportsFiles is effective_grants.exports_files.
type ExportsFiles struct {
	Root     string `json:"root"`
	Mode     string `json:"mode"`
	MaxBytes int64  `json:"max_bytes"`
}

// PeerFiles is effective_grants.peer_files.
type PeerFiles struct {
	Root       string `json:"root"`
	MaxTTLSecs int64  `json:"max_ttl_secs"`
	MaxBytes   int64  `json:"max_bytes"`
}

// Install is effective_grants.install.
type Install struct {
	Skill []string `json:"skill"`
	Tool  []string `json:"tool"`
	From  []string `json:"from"`
}

// Lifecycle is session_start.lifecycle: capsule.md §1.5's keys after the
// overrides.
type Lifecycle struct {
	TaskAcceptance         string                `json:"task_acceptance"`
	AfterTask              string                `json:"after_task"`
	QueueDepth             int                   `json:"queue_depth"`
	MaxTaskReopens         int                   `json:"max_task_reopens"`
	KeepWorking            *LifecycleKeepWorking `json:"keep_working"`
	DoneCheck              *LifecycleDoneCheck   `json:"done_check"`
	ShellGraceSecs         *int                  `json:"shell_grace_secs"`
	DeadlineNoticeSecs     *int                  `json:"deadline_notice_secs"`
	DelegationDeadlineSecs int                   `json:"delegation_deadline_secs"`
}

// LifecycleKeepWorking is lifecycle.keep_working (LOOP-13).
type LifecycleKeepWorking struct {
	Limit   int    `json:"limit"`
	Message string `json:"message"`
}

// LifecycleDoneCheck is lifecycle.done_check (LOOP-14).
type LifecycleDoneCheck struct {
	Command     string `json:"command"`
	Limit       int    `json:"limit"`
	TimeoutSecs int    `json:"timeout_secs"`
}

// SessionEnd is session_end (capsule.md §6, TRACE-4).
type SessionEnd struct {
	TotalTurns        int    `json:"total_turns"`
	TotalInputTokens  int64  `json:"total_input_tokens"`
	TotalOutputTokens int64  `json:"total_output_tokens"`
	TotalToolCalls    int    `json:"total_tool_calls"`
	TotalShellCalls   int    `json:"total_shell_calls"` // shell + shell_detached
	DurationMS        int64  `json:"duration_ms"`
	ExitStatus        string `json:"exit_status"` // LOOP-20
}

// Retention is retention: one per store and reason that removed
// anything.
type Retention struct {
	Store   string   `json:"store"`  // "records"
	Reason  string   `json:"reason"` // max_sessions | max_age
	Removed []string `json:"removed"`
}

// DeadlineReached is deadline_reached (SES-7).
type DeadlineReached struct {
	At          string   `json:"at"`
	LiveTaskIDs []string `json:"live_task_ids"`
}

// InferenceCredential is inference_credential (DRV-4).
type InferenceCredential struct {
	Source     string `json:"source"` // "environment"
	Credential string `json:"credential"`
	Change     string `json:"change"` // "rejected"
	Status     int    `json:"status"`
}

// FormationEnded is formation_ended (formations.md TRC-2).
type FormationEnded struct {
	FormationID string `json:"formation_id"`
}

// A2ATaskReceived is a2a_task_received (capsule.md §6); caller_member only
// when a member token admitted the task (TRC-3).
type A2ATaskReceived struct {
	TaskID                string  `json:"task_id"`
	ContextID             string  `json:"context_id"`
	MessageID             string  `json:"message_id"`
	TraceparentFromCaller *string `json:"traceparent_from_caller"`
	CallerMember          string  `json:"caller_member,omitzero"`
}

// TaskRejected is task_rejected (capsule.md §6).
type TaskRejected struct {
	TaskID string `json:"task_id"`
	Cause  string `json:"cause"` // busy | queue_full | not_accepting | session_ended
	Source string `json:"source"`
}

// ShellCompleted is shell_completed (SHELL-3): a background command exited.
type ShellCompleted struct {
	WorkID           string  `json:"work_id"`
	ExitCode         *int    `json:"exit_code"`
	Status           string  `json:"status"`
	DurationMS       int64   `json:"duration_ms"`
	OutputBytes      int64   `json:"output_bytes"`
	CompletionTaskID *string `json:"completion_task_id"`
}

// ShellAbandoned is shell_abandoned: a background command killed at
// session end (BG-3).
type ShellAbandoned struct {
	WorkID    string `json:"work_id"`
	Binary    string `json:"binary"`
	Command   string `json:"command"`
	RunningMS int64  `json:"running_ms"`
}

// ShellLost is shell_lost: a background command of a session killed
// outright (a shell_detached with no shell_completed, shell_abandoned or
// shell_lost), found by a later mur run --resume and appended to that
// session's trace, so a second resume does not report it again.
type ShellLost struct {
	WorkID              string `json:"work_id"`
	Binary              string `json:"binary"`
	Command             string `json:"command"`
	DetachedAtMS        int64  `json:"detached_at_ms"`        // the shell_detached line's timestamp
	ReconciledBySession string `json:"reconciled_by_session"` // the resuming session
	ReconciledTaskID    string `json:"reconciled_task_id"`    // its detached_lost completion task
}

func (SessionStart) EventType() string        { return "session_start" }
func (SessionEnd) EventType() string          { return "session_end" }
func (Retention) EventType() string           { return "retention" }
func (DeadlineReached) EventType() string     { return "deadline_reached" }
func (InferenceCredential) EventType() string { return "inference_credential" }
func (FormationEnded) EventType() string      { return "formation_ended" }
func (A2ATaskReceived) EventType() string     { return "a2a_task_received" }
func (TaskRejected) EventType() string        { return "task_rejected" }
func (ShellCompleted) EventType() string      { return "shell_completed" }
func (ShellAbandoned) EventType() string      { return "shell_abandoned" }
func (ShellLost) EventType() string           { return "shell_lost" }

func (SessionStart) task() string        { return "" }
func (SessionEnd) task() string          { return "" }
func (Retention) task() string           { return "" }
func (DeadlineReached) task() string     { return "" }
func (InferenceCredential) task() string { return "" }
func (FormationEnded) task() string      { return "" }
func (r A2ATaskReceived) task() string   { return r.TaskID }
func (r TaskRejected) task() string      { return r.TaskID }
func (ShellCompleted) task() string      { return "" }
func (ShellAbandoned) task() string      { return "" }
func (ShellLost) task() string           { return "" }
