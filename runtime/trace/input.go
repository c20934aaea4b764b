package trace

// InputRequest is input_request (input.md INP-10): a request-input call
// parked its task INPUT_REQUIRED. Written under the turn that made the call,
// before the wait; the call's tool_call follows once it is answered.
type InputRequest struct {
	Turn        int     `json:"turn"`
	TaskID      string  `json:"task_id"`
	ToolCallID  *string `json:"tool_call_id"`
	PromptBytes int     `json:"prompt_bytes"` // after the 64 KiB cut
	TimeoutSecs *int    `json:"timeout_secs"` // lifecycle.input_timeout_secs; null: no bound
}

// InputReply is input_reply (INP-10): the reply that answered the question,
// and who sent it; caller_member only for a member token (AUTH-6).
type InputReply struct {
	TaskID       string `json:"task_id"`
	MessageID    string `json:"message_id"`
	Origin       string `json:"origin"`
	Trust        string `json:"trust"`
	CallerMember string `json:"caller_member,omitzero"`
	WaitedMS     int64  `json:"waited_ms"`
	ReplyBytes   int    `json:"reply_bytes"` // the reply's text, after the 64 KiB cut
}

// InputTimeout is input_timeout (INP-7, INP-10): no reply arrived within
// lifecycle.input_timeout_secs.
type InputTimeout struct {
	TaskID      string `json:"task_id"`
	WaitedMS    int64  `json:"waited_ms"`
	TimeoutSecs int    `json:"timeout_secs"`
}

func (InputRequest) EventType() string { return "input_request" }
func (InputReply) EventType() string   { return "input_reply" }
func (InputTimeout) EventType() string { return "input_timeout" }

func (r InputRequest) task() string { return r.TaskID }
func (r InputReply) task() string   { return r.TaskID }
func (r InputTimeout) task() string { return r.TaskID }
