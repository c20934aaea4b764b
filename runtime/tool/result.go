package tool

import (
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/trace"
)

// Status is a tool result's status (TOOL-5).
type Status string

// The two statuses.
const (
	Passed Status = "passed"
	Failed Status = "failed"
)

// Rec is a tool-specific trace record the loop writes after the call's
// tool_call line (capsule.md §6: "shell … after its tool_call"), parented to
// the turn. Written, when set, receives the record's event id.
type Rec struct {
	Record trace.Record
	// Parent is the event id of the record to hang r under (the turn that
	// made a call whose records come later, TRACE-2); "" follows TRACE-2's
	// rule for r's type.
	Parent  string
	Written func(eventID string)
}

// String is r's record as one JSON object without the envelope
// (trace.Marshal): event_type, then its fields. Tests keep it golden.
func (r Rec) String() string {
	b, err := trace.Marshal(r.Record)
	if err != nil {
		return "!" + err.Error()
	}
	return string(b)
}

// Result is what a tool call returns (TOOL-5, TOOL-6).
type Result struct {
	Status Status
	// Summary is the one line of tool_call.summary (TOOL-9); never model-visible.
	Summary string
	// Data is the body: compact JSON or the tool's text; fenced under Source
	// unless Refused.
	Data string
	// Notes are runtime lines after the fence: the tool's, then shell notes
	// (FENCE-5). The loop appends the deadline notice.
	Notes []string
	// Refused: the call never ran; Data is an unfenced tool error (TOOL-6).
	Refused bool
	// Denied: a policy hook refused the call before it ran (TOOL-7); its
	// call_denied is written and no tool_call is.
	Denied bool
	// Source is the fence source, e.g. "tool:bash" (FENCE-2); "" means
	// "tool:<name>".
	Source string
	// ExitCode is a shell command's exit code, for the artifact watch frame.
	ExitCode *int
	// Records are written after tool_call, in order.
	Records []Rec
	// Shells is how many shell commands the call ran (task_end.shell_calls,
	// session_end.total_shell_calls): one for a shell binary call, and a
	// plan's shell steps and shell tool steps.
	Shells int
	// Detached lists the work ids of the commands the call moved to the
	// background (SHELL-2), in order: task_canceled.detached_work_ids.
	Detached []string
	// Input and output bytes a skill call records (skill_call); unused otherwise.
	Skill bool
}

// IsError reports whether the model sees the result as a tool error.
func (r *Result) IsError() bool { return r.Refused || r.Status == Failed }

// Refusal returns a refused result (TOOL-6) with text as its unfenced error.
func Refusal(tool, text string) Result {
	return Result{Status: Failed, Refused: true, Data: text, Summary: tool + ": refused"}
}

// Content renders what the model gets (TOOL-5, FENCE-5): a refusal's text
// alone; otherwise the data cut at 64 KiB (TOOL-10) and fenced, then each note
// and each extra line (the deadline notice) on its own line. truncated
// reports a TOOL-10 cut.
func (r *Result) Content(toolName string, extra ...string) (content string, truncated bool) {
	if r.Refused {
		return r.Data, false
	}
	src := r.Source
	if src == "" {
		src = SourceTool + toolName
	}
	data, truncated := Cut64(r.Data)
	lines := append([]string{Fence(src, data)}, r.Notes...)
	lines = append(lines, extra...)
	return strings.Join(lines, "\n"), truncated
}

// JSON encodes v compactly without HTML escaping (TOOL-5). Maps encode with
// sorted keys; structs in field order.
func JSON(v any) string {
	b, err := a2a.Marshal(v)
	if err != nil {
		// Only values built in this package reach here; they always encode.
		panic("tool: encode result data: " + err.Error())
	}
	return string(b)
}
