package input

import "fmt"

// Every text request-input shows (input.md §1–§3), in one place.

// Schema is the tool's input schema, exactly murmur's one parameter (INP-3).
const Schema = `{"type":"object","properties":{"prompt":{"type":"string","description":"The question to present to the operator"}},"required":["prompt"]}`

// Description is the tool's description (INP-3).
const Description = "Pauses this task and puts one question to the operator; the operator's reply is this tool's result. " +
	"Use it only for a decision you cannot make on your own, and ask one clear, specific question."

// refusalPrompt refuses a missing, non-string or blank prompt (INP-4).
const refusalPrompt = "'murmur-tool-request-input' needs prompt: the question to put to the operator"

// The tool_call summaries (tools.md TOOL-9; INP-7, INP-8).
const (
	summaryReplied  = "murmur-tool-request-input: replied"
	summaryTimedOut = "murmur-tool-request-input: timed out"
	summaryCanceled = "murmur-tool-request-input: canceled"
)

// INP-7's ending: task_failed's cause, and its reason, which is also the
// task's status message exactly (murmur's word).
const (
	causeTimeout  = "input_timeout"
	statusTimeout = "input-timeout"
)

// textCanceled is the call's result when the task was canceled while it
// waited (the attempt ends, so no model reads it but the trace).
const textCanceled = "the task was canceled while it waited for the operator's reply"

// textTimedOut is the call's result at INP-7's timeout: INP-12's text, the
// bridged call's answer, kept the same here.
func textTimedOut(secs int) string {
	return fmt.Sprintf("no reply arrived within %ds; this task ends", secs)
}
