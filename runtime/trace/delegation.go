package trace

// DelegationStart is delegation_start (tools.md DLG-9): a child the
// delegation started reported ready; written before the task is sent.
type DelegationStart struct {
	DelegationID   string `json:"delegation_id"`
	Capsule        string `json:"capsule"`
	Version        string `json:"version"`
	ChildSessionID string `json:"child_session_id"`
	ChildWorkdir   string `json:"child_workdir"` // relative to the parent's accessible workdir
}

// Delegation is delegation (tools.md DLG-9), once a delegation is accounted
// for. delegation_id is null when no child was started (a referee refusal);
// outcome is ok|error|crashed|terminated|unknown for a started child,
// completed|timed_out|failed for a plan's capsule step, failed|refused
// without a child; never started.
type Delegation struct {
	Capsule        string  `json:"capsule"`
	Version        string  `json:"version"`
	DelegationID   *string `json:"delegation_id"`
	ChildSessionID *string `json:"child_session_id"`
	DurationMS     int64   `json:"duration_ms"`
	Outcome        string  `json:"outcome"`
	Reason         *string `json:"reason"`
}

// SpawnerEnded is spawner_ended (tools.md DLG-6): a delegated child's
// spawner lifeline closed, so the capsule that delegated to it has ended.
type SpawnerEnded struct {
	SpawnedBy    string `json:"spawned_by"`
	DelegationID string `json:"delegation_id"`
}

func (DelegationStart) EventType() string { return "delegation_start" }
func (Delegation) EventType() string      { return "delegation" }
func (SpawnerEnded) EventType() string    { return "spawner_ended" }

func (DelegationStart) task() string { return "" }
func (Delegation) task() string      { return "" }
func (SpawnerEnded) task() string    { return "" }
