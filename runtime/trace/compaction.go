package trace

// Compaction is compaction: the conversation replaced by a shorter one at
// the compaction check (tokens_before the check's figure, tokens_after the
// estimate of the request the replacement makes; tokens_before_source is
// the check's measured_by). Under transport: process it is the harness's
// own compaction as its stream reports it: source "harness", hook_name the
// harness, trigger its reason ("auto", "manual"), tokens_before its count
// (tokens_before_source "harness"), no tokens_after.
type Compaction struct {
	Turn               int    `json:"turn"`
	TaskID             string `json:"task_id"`
	HookName           string `json:"hook_name"`
	TokensBefore       int64  `json:"tokens_before"`
	TokensBeforeSource string `json:"tokens_before_source"`
	TokensAfter        int64  `json:"tokens_after,omitzero"`
	Source             string `json:"source,omitzero"`
	Trigger            string `json:"trigger,omitzero"`
}

// CompactionDeclined is compaction_declined: the check fired and the
// conversation was kept (reason "no_hook_replacement",
// "unresolved_tool_call", "no_shorter").
type CompactionDeclined struct {
	Turn   int    `json:"turn"`
	TaskID string `json:"task_id"`
	Tokens int64  `json:"tokens"`
	Reason string `json:"reason"`
}

func (Compaction) EventType() string         { return "compaction" }
func (CompactionDeclined) EventType() string { return "compaction_declined" }

func (r Compaction) task() string         { return r.TaskID }
func (r CompactionDeclined) task() string { return r.TaskID }
