package view

// The JSON the page reads: a Snapshot when its event stream opens, then one
// event per changed Member, Call or Task, each carrying the whole object
// (the page replaces what it holds by key); a Timeline on request. Each type
// is declared once, here, and used by the server and the page alike.

// Kind is what a view shows: a formation, or a single session.
type Kind string

// The two kinds.
const (
	KindFormation Kind = "formation"
	KindSession   Kind = "session"
)

// Member states on the page.
const (
	MemberStarting = "starting" // known, its door not serving yet
	MemberReady    = "ready"    // its door serves, no task yet
	MemberWorking  = "working"  // a task is submitted, working or waiting for input
	MemberIdle     = "idle"     // its tasks have all ended
	MemberEnded    = "ended"    // its session ended (or its process is gone)
)

// Snapshot is the whole picture, sent first on every event stream.
type Snapshot struct {
	Kind    Kind     `json:"kind"`
	ID      string   `json:"id"`
	Live    bool     `json:"live"` // some member may still be running
	Members []Member `json:"members"`
	Calls   []Call   `json:"calls"`
	Tasks   []Task   `json:"tasks"`
}

// Status is the view's own state, sent when Live changes.
type Status struct {
	Live bool `json:"live"`
}

// Member is one roster member (or the one session of a session view).
type Member struct {
	Name      string   `json:"name"`
	SessionID string   `json:"session_id,omitempty"`
	Capsule   string   `json:"capsule,omitempty"`
	Version   string   `json:"version,omitempty"`
	Entry     bool     `json:"entry"`
	State     string   `json:"state"`
	Callees   []string `json:"callees"`          // the roster's edges from this member (TRC-1)
	Exit      string   `json:"exit,omitempty"`   // session_end's exit_status, once ended
	Tasks     int      `json:"tasks"`            // tasks seen
	LiveTasks int      `json:"live_tasks"`       // tasks not yet in a terminal state
	Status    string   `json:"status,omitempty"` // the latest task status message (stream/watch)
}

// Step is one state a call or a task entered, and when (Unix ms).
type Step struct {
	State string `json:"state"`
	At    int64  `json:"at"`
	Note  string `json:"note,omitempty"`
}

// Call is one call-member call (tools.md CALL-11): busy while offered and
// refused, started once held, then its ending status.
type Call struct {
	ID           string `json:"id"`
	From         string `json:"from"`
	To           string `json:"to"`
	TaskID       string `json:"task_id"` // the calling task
	MemberTaskID string `json:"member_task_id,omitempty"`
	State        string `json:"state"`  // busy, started, or a member_call status
	Offers       int    `json:"offers"` // busy refusals so far (the re-offer count)
	At           int64  `json:"at"`
	DurationMS   *int64 `json:"duration_ms,omitempty"`
	History      []Step `json:"history"`
}

// Task is one task of one member with its A2A states over time (door.md
// TASK-2's murmur words: submitted, working, input-required, completed,
// failed, canceled, rejected).
type Task struct {
	Member       string `json:"member"`
	ID           string `json:"id"`
	Caller       string `json:"caller,omitempty"`  // the member that sent it (caller_member)
	CallID       string `json:"call_id,omitempty"` // the call that sent it
	Source       string `json:"source,omitempty"`  // task_start's source: a2a, task_md, detached_shell
	State        string `json:"state"`
	Exit         string `json:"exit,omitempty"`   // task_end's exit_status
	Status       string `json:"status,omitempty"` // the latest status message (stream/watch)
	At           int64  `json:"at"`
	Turns        int64  `json:"turns"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	Records      int    `json:"records"` // trace records of this task so far
	History      []Step `json:"history"`
}

// Timeline is one task's trace, as the page lists it.
type Timeline struct {
	Member string `json:"member"`
	TaskID string `json:"task_id"`
	Items  []Item `json:"items"`
}

// Item is one line of a timeline: a trace record of the task. MS is the
// record's duration (tool calls, shells, member calls, waits, the task) or,
// for an inference call, its latency: the time since the task's previous
// record, as the inference record carries no duration of its own.
type Item struct {
	At     int64  `json:"at"`
	Kind   string `json:"kind"` // the record's event_type
	Turn   *int64 `json:"turn,omitempty"`
	Title  string `json:"title"`
	Status string `json:"status,omitempty"`
	MS     *int64 `json:"ms,omitempty"`
	In     *int64 `json:"in,omitempty"`  // input tokens
	Out    *int64 `json:"out,omitempty"` // output tokens
	CallID string `json:"call_id,omitempty"`
	Member string `json:"member,omitempty"` // the member called, or the caller
	Detail string `json:"detail,omitempty"`
}
