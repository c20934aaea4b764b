package delegate

import (
	"fmt"
	"strings"

	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/tool"
)

// Every text delegate-task hands the model, exact (tools.md §13; ours where
// the spec fixes only content).

// description is DLG-1's tool description.
const description = "Hands one task to one sub-capsule, which the runtime starts for it, and returns as soon as the sub-capsule is running and holding the task. " +
	"capsule is the sub-capsule's name and version its exact version, as capabilities.spawn.allow lists them; task is the whole of what it is told, so put everything it needs in the task text. " +
	"The result names the delegation id and the sub-capsule's directory. Its outcome is not in the result: it arrives in this conversation, naming the delegation id, after you end your turn, with where the sub-capsule's result file is. " +
	"A sub-capsule never holds more capability than this capsule, and it ends when this capsule ends."

// The statuses of a delegate-task result (DLG-4).
const (
	statusStarted = "started"
	statusFailed  = "failed"
)

// The outcomes of a delegation record with no started child (DLG-9).
const (
	outcomeFailed  = "failed"
	outcomeRefused = "refused"
)

// refusedNoTask refuses a call outside a task (as call-member's CALL-2).
const refusedNoTask = "'delegate-task' is answered only while a task runs; this session is running none"

// noteStarted is DLG-4's note on a started delegation.
func noteStarted(capsule, id string) string {
	return fmt.Sprintf("[delegate-task] %s is now working on delegation %s. Its outcome is not in this result: the runtime adds it to this conversation after you end your turn.", capsule, id)
}

// summary is TOOL-9's "<tool>: <outcome>".
func summary(capsule, outcome string) string {
	return fmt.Sprintf("delegate-task %s: %s", capsule, outcome)
}

// header is DLG-8's header line.
func header(id, capsule, version, status string) string {
	return fmt.Sprintf("[delegate-task] delegation %s to %s@%s ended %s:", id, capsule, version, status)
}

// block is one outcome in a continuation (DLG-8): the header, then the
// completion's fields fenced under delegation:<capsule>.
func block(id, capsule, version string, o spawn.Outcome) string {
	c := o.Completion
	lines := []string{
		"delegation_id: " + id,
		"capsule: " + capsule + "@" + version,
		"session_id: " + c.SessionID,
		"status: " + o.Status,
		fmt.Sprintf("duration_ms: %d", c.DurationMS),
		"workdir: " + c.Workdir,
	}
	if c.ResultPath != "" {
		lines = append(lines, "result: "+c.ResultPath+" (in that workdir)")
	} else {
		lines = append(lines, "result: none (the child wrote no result file)")
	}
	if c.Detail != "" {
		lines = append(lines, "detail: "+c.Detail)
	}
	return header(id, capsule, version, o.Status) + "\n" + tool.Fence(tool.SourceDelegation+capsule, strings.Join(lines, "\n"))
}

// waitingText is RND-1's part for delegations.
func waitingText(n int) string {
	return fmt.Sprintf("waiting on delegate-task: %d delegation(s) outstanding", n)
}

// continuingText is RND-2's status for delegations.
func continuingText(n int) string {
	return fmt.Sprintf("continuing with %d delegation outcome(s)", n)
}

// deadlineReason is DLG-5's reason, naming the bound in seconds.
func deadlineReason(secs int) string {
	return fmt.Sprintf("the delegation ran past its deadline of %ds (lifecycle.delegation_deadline_secs), so the runtime ended the sub-capsule", secs)
}

// unwaitedReason is DLG-8's reason for a delegation the task ended without
// waiting for.
func unwaitedReason(e tool.Ending) string {
	switch {
	case e.Status == "canceled":
		return "the delegating task was cancelled"
	case e.NoTurnLeft:
		return "the delegating task had no inference turn left to read this outcome"
	}
	return fmt.Sprintf("the delegating task ended %s before this sub-capsule finished", e.Status)
}
