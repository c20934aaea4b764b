package member

import (
	"fmt"
	"strings"
)

// Every text call-member and end-without-answer hand the model, exact
// (tools.md §10–§12; seed 000 "call-member", "end-without-answer").

// The tool descriptions (CALL-1, EWA-1; wording ours, content the seed's).
const (
	callDescription = "Hands one task to another member of this formation. The task text is the whole of what the member is told, so put any file content it needs in the task text. The call returns at once with a call id: started when the member holds the task, or busy when it has no room, in which case the runtime keeps offering it the task until it takes it or the call's deadline passes. The member's answer arrives in this conversation, naming the call id, after you end your turn. A second call to a member before its answer has arrived is refused."
	ewaDescription  = "Ends this task without an answer. Use it instead of replying when you have no answer to give, usually because a member you called gave you none. The reason is passed to the member that sent the task: the runtime tells that member plainly that no answer came, and names each member you called that gave none. It is refused while a call you made is still out, and for a task no formation member sent."
)

// Call statuses (CALL-7, CALL-11) and EWA-2's data status.
const (
	statusStarted     = "started"
	statusBusy        = "busy"
	statusCompleted   = "completed"
	statusNoAnswer    = "no_answer"
	statusFailed      = "failed"
	statusCanceled    = "canceled"
	statusRejected    = "rejected"
	statusTimedOut    = "timed_out"
	statusUnreachable = "unreachable"
	statusAbandoned   = "abandoned"
	statusEnding      = "ending"
)

// busyMessage is the one refusal call-member offers again (CALL-9, door.md TASK-5).
const busyMessage = "task rejected: capsule is busy"

// CALL-2's refusals.

const refusedNoTask = "'call-member' is answered only while a task runs; this session is running none"

const refusedEnding = "'call-member' makes no call from a task that is ending without an answer."

func refusedNotCallee(member string, callees []string) string {
	return fmt.Sprintf("'%s' is not a member this capsule may call; it may call: %s", member, strings.Join(callees, ", "))
}

func refusedNotAnswered(member, callID string) string {
	return member + " has not yet answered call " + callID + " from this task, so nothing was sent. Its answer reaches you only after you end your turn: end your turn now by replying without calling a tool. Once that answer has arrived you may call " + member + " again with new work."
}

func refusedAnswered(member, callID string) string {
	return member + " has already answered call " + callID + ", so nothing was sent. The answer reaches you as soon as you end your turn: end your turn now by replying without calling a tool."
}

// callSummary is CALL-7's summary for a call that ended (or stands) status;
// TOOL-9's "<tool>: <outcome>" form for the abandoned status no model sees.
func callSummary(member, status string) string {
	switch status {
	case statusStarted:
		return fmt.Sprintf("Called %s: started", member)
	case statusBusy:
		return fmt.Sprintf("Called %s: busy", member)
	case statusRejected:
		return fmt.Sprintf("Called %s: rejected", member)
	case statusFailed:
		return fmt.Sprintf("Called %s: failed", member)
	}
	return "call-member: " + status
}

// CALL-8's notes.

func noteStarted(member, callID string) string {
	return "[call-member] " + member + " is now working on call " + callID + ". Its answer is not in this result and no tool fetches it: the runtime adds it to this conversation after you end your turn. Unless you still have work to hand to a different member, end your turn now by replying without calling a tool. Calling " + member + " again before its answer arrives is refused."
}

func noteBusy(member, callID string, deadlineSecs int) string {
	return fmt.Sprintf("[call-member] %s is busy with other work and has not taken call %s yet. The runtime keeps offering it the task for up to %ds and adds %s's answer, or word that it stayed busy, to this conversation after you end your turn. Unless you still have work to hand to a different member, end your turn now by replying without calling a tool. Calling %s again before then is refused.", member, callID, deadlineSecs, member, member)
}

// noteEnded is the rejected/failed note; caller is the formation member that
// sent the task, "" when none.
func noteEnded(member, callID, status, caller string) string {
	s := "[call-member] Call " + callID + " to " + member + " ended " + status + ", with no answer from " + member + ". Do not present an answer of your own as " + member + "'s."
	if caller != "" {
		s += " If you have no answer to give without " + member + ", call end-without-answer with the reason: the runtime then tells " + caller + " plainly that you gave none."
	}
	return s
}

// Outputs: the <why> and ending sentences (CALL-7, CALL-9, CALL-10).

func outputBusy(member string) string {
	return member + " is busy with other work and did not take the task"
}

// outputRejected is the rejection sentence of a door's TASK_STATE_REJECTED
// answer (CALL-7): busy, another message less a leading "task rejected: ",
// or none.
func outputRejected(member, message string) string {
	switch {
	case message == busyMessage:
		return outputBusy(member)
	case message == "":
		return member + " did not take the task"
	}
	return member + " did not take the task: " + strings.TrimPrefix(message, "task rejected: ")
}

func outputStayedBusy(member string, deadlineSecs, offers int) string {
	return fmt.Sprintf("%s stayed busy with other work for the whole %ds this call may wait and never took the task; it was offered the task %d times. Nothing was done on it.", member, deadlineSecs, offers)
}

func outputAbandonedBetween(member string) string {
	return "the calling task ended before " + member + " took the task; " + member + " was busy and was never handed it"
}

func outputAbandonedTaken(member string) string {
	return "the calling task ended just after " + member + " took the task; a cancel was sent to " + member
}

func outputAbandonedInFlight(member string) string {
	return "the calling task ended while an offer to " + member + " was in flight; " + member + " may hold the task"
}

func outputAbandonedHeld(member string) string {
	return "the calling task ended before " + member + "'s answer arrived; " + member + " was not cancelled and may still be working"
}

// outputCascaded is an abandoned held call's output once cancel: cascade
// canceled the member's task.
func outputCascaded(member string) string {
	return "the calling task ended before " + member + "'s answer arrived; " + member + "'s task was canceled (cancel: cascade)"
}

func outputTimedOut(member string, deadlineSecs int) string {
	return fmt.Sprintf("%s did not answer within %ds. Its task was not cancelled — a call that runs out its bound leaves the task it handed over running — and %s may still be working on it", member, deadlineSecs, member)
}

func outputStoppedAnswering(member, why string) string {
	return member + "'s door stopped answering: " + why
}

// outputUnreached is ours: the first offer got no answer at all.
func outputUnreached(member, why string) string {
	return member + "'s door could not be reached: " + why
}

// outputCardRefused is call-member's refusal of a callee whose Agent Card
// is not signed with the formation's card key (A2A §8.4): nothing was sent.
func outputCardRefused(member, url, formation, why string) string {
	return "'" + member + "' was not called: the Agent Card at " + url + " does not verify against formation " + formation +
		"'s card key (" + why + "), so the door answering there may not be the member the formation launched; nothing was sent"
}

func outputEgress(member string) string {
	return "'" + member + "' could not be called: this capsule's capabilities.network.allow does not reach its door. A formation serves each member's door on loopback http at a port chosen at launch; declare the bare host \"localhost\", which matches every port"
}

func outputRPCError(member string, code int64, message string) string {
	return fmt.Sprintf("%s's door refused the task with JSON-RPC error %d: %s", member, code, message)
}

func outputGetTaskRPCError(member string, code int64, message string) string {
	return fmt.Sprintf("%s's door answered GetTask with JSON-RPC error %d: %s", member, code, message)
}

func outputHTTPStatus(member, status, message string) string {
	return member + "'s door answered " + status + ": " + message
}

func outputAnsweredState(member, state, message string) string {
	return member + " answered the task " + state + ": " + message
}

// outputUnreadable is ours: an answer that is not a valid A2A response.
func outputUnreadable(member, method string) string {
	return member + "'s door answered " + method + " with a response that could not be read"
}

func outputNoAnswerDefault(member string) string {
	return member + " ended its task without an answer"
}

// outputEndedDefault is ours: a terminal task with no status message.
func outputEndedDefault(member, status string) string {
	return member + "'s task ended " + status
}

// RND-1, RND-2's stream texts.

func waitingText(n int) string {
	return fmt.Sprintf("waiting on call-member: %d call(s) outstanding", n)
}

func continuingText(n int) string { return fmt.Sprintf("continuing with %d member answer(s)", n) }

// RND-4..8's continuation lines.

func headerCompleted(callID, member string) string {
	return "[call-member] call " + callID + " to " + member + " ended completed:"
}

func headerOther(callID, member, status string) string {
	return "[call-member] call " + callID + " to " + member + " ended " + status + ", with no answer from " + member + ":"
}

const noAnswerLineHead = "[call-member] No answer came from: "

const noAnswerLineTail = ". What you asked of them has not been done by them: do not present an answer of your own as theirs."

// noAnswerItem is one member of the no-answer line, in the further-down form
// when it reported members below (RND-5).
func noAnswerItem(member, callID, status, below string) string {
	if below == "" {
		return member + " (call " + callID + ", " + status + ")"
	}
	return member + " (call " + callID + ", " + status + "; further down, no answer came from " + below + ")"
}

func gapLine(member, callID, below string) string {
	return "[call-member] " + member + " (call " + callID + ") answered without an answer from " + below + ": any part of its answer that stands in for theirs is " + member + "'s own, not theirs."
}

const lastLineComplete = "[call-member] Every call this task made has ended, and the answers are above. Answer the task with them now; call a member again only to give it new work."

const lastLineMissing = "[call-member] Every call this task made has ended. Answer the task with the answers you have and say plainly which part has no answer, or call a member again if another attempt could succeed."

func lastLineCaller(caller string) string {
	return " If you have no answer to give, call end-without-answer with the reason instead: the runtime then tells " + caller + " plainly that you gave none."
}

// EWA-2, EWA-3.

const ewaSummary = "Ending task without an answer"

func ewaNote(caller string) string {
	return "[end-without-answer] This task ends without an answer once this turn's tool calls finish, and " + caller + " is told you gave none."
}

const (
	ewaRefusedNotMember = "'end-without-answer' is answered only for a formation member that roster.yaml lets call another; this session is not one"
	ewaRefusedNoTask    = "'end-without-answer' is answered only while a task runs; this session is running none"
	ewaRefusedNoSender  = "'end-without-answer' ends only a task another formation member sent; no formation member sent this one. Reply in text, saying plainly which part has no answer."
	ewaRefusedNoReason  = "'end-without-answer' needs a reason: say in a sentence why you have no answer."
	ewaRefusedAlready   = "This task is already ending without an answer."
)

func ewaRefusedCallOut(callID, member string) string {
	return "Call " + callID + " to " + member + " is still out; its answer arrives after you end your turn. Call end-without-answer only when no call is left to wait for."
}
