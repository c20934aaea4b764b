package trace

// MemberCallBusy is member_call_busy (tools.md CALL-11): an offer the
// callee answered busy.
type MemberCallBusy struct {
	TaskID   string `json:"task_id"`
	CallID   string `json:"call_id"`
	Member   string `json:"member"`
	Offer    int    `json:"offer"` // from 1
	WaitedMS int64  `json:"waited_ms"`
	Message  string `json:"message"`
}

// MemberCallStart is member_call_start (tools.md CALL-11): the callee
// holds the call as member_task_id.
type MemberCallStart struct {
	TaskID       string `json:"task_id"`
	CallID       string `json:"call_id"`
	Member       string `json:"member"`
	MemberTaskID string `json:"member_task_id"`
}

// MemberCall is member_call (tools.md CALL-11), once the call is accounted
// for; member_task_id is absent when the callee never held it.
type MemberCall struct {
	TaskID       string `json:"task_id"`
	CallID       string `json:"call_id"`
	Member       string `json:"member"`
	MemberTaskID string `json:"member_task_id,omitzero"`
	Status       string `json:"status"`
	DurationMS   int64  `json:"duration_ms"`
	Output       string `json:"output"` // cut at 64 KiB
	Truncated    bool   `json:"truncated"`
	Delivered    bool   `json:"delivered"`
	// CascadeCanceled: the calling task ended with this call undelivered and
	// cancel: cascade had its member task canceled; absent
	// otherwise, so a roster without it writes the record as before.
	CascadeCanceled bool `json:"cascade_canceled,omitzero"`
}

func (MemberCallBusy) EventType() string  { return "member_call_busy" }
func (MemberCallStart) EventType() string { return "member_call_start" }
func (MemberCall) EventType() string      { return "member_call" }

func (r MemberCallBusy) task() string  { return r.TaskID }
func (r MemberCallStart) task() string { return r.TaskID }
func (r MemberCall) task() string      { return r.TaskID }
