package agent

import (
	"fmt"
	"strings"
)

// Exit statuses of a task (LOOP-5, tools.md REC-4) and of a session (LOOP-20).
const (
	StatusOK             = "ok"
	StatusFailed         = "failed"
	StatusMaxTurns       = "max_turns_reached"
	StatusSpendCeiling   = "spend_ceiling_reached"
	StatusReopenBudget   = "reopen_budget_exhausted"
	StatusCanceled       = "canceled"
	StatusNoAnswer       = "no_answer"
	StatusFormationEnded = "formation_ended"
)

// Ending is how an attempt, and so a task, ended.
type Ending struct {
	Status    string
	Text      string // the SES-5 text (ok: the answer)
	Answer    string // ok: the answer without any truncation note
	Cause     string // task_failed.cause
	Reason    string // task_failed.reason; no_answer: the bare reason
	MaxTokens bool   // ok at the max_tokens cap (W-RUN-001)
	// StatusText, when set, is the final status message instead of Text
	// (INP-7's input-timeout).
	StatusText string
}

// SES-5's result texts.

// ResultMaxTokens is an answer cut at the inference.max_tokens cap.
func ResultMaxTokens(text string, n int) string {
	return fmt.Sprintf("%s\n[truncated: the reply stopped at the inference.max_tokens output cap of %d tokens]", text, n)
}

// ResultFailed is a failed task's text.
func ResultFailed(reason string) string { return "error: " + reason }

// ResultMaxTurns is the text of a task that spent inference.max_turns.
func ResultMaxTurns(n int) string {
	return fmt.Sprintf("stopped: inference.max_turns (%d) reached before the task finished", n)
}

// ResultSpend is LOOP-18's text of a call the spend ceiling refused.
func ResultSpend(ceiling, used, needed int64) string {
	return fmt.Sprintf("stopped: spend ceiling reached: session ceiling %d, used %d, this call needed %d; retrying will not get past it", ceiling, used, needed)
}

// ResultTurnBudget is a reopen refused for want of a turn.
const ResultTurnBudget = "error: task turn budget exhausted"

// ResultReopenBudget is a reopen refused by lifecycle.max_task_reopens.
const ResultReopenBudget = "error: task reopen budget exhausted"

// ResultCanceled is a canceled task's text; by is who canceled it.
func ResultCanceled(by string) string { return "canceled: " + by }

// ResultNoAnswer is EWA-4's text.
func ResultNoAnswer(reason string) string { return "no answer: " + reason }

// BareReason is E-RUN-040's <reason>: a SES-5 text without its leading
// "error: ", "stopped: " or "canceled: ".
func BareReason(text string) string {
	for _, p := range []string{"error: ", "stopped: ", "canceled: "} {
		if r, ok := strings.CutPrefix(text, p); ok {
			return r
		}
	}
	return text
}

// Failed is a failed attempt's Ending with task_failed's cause and reason.
func Failed(cause, reason string) Ending {
	return Ending{Status: StatusFailed, Text: ResultFailed(reason), Cause: cause, Reason: reason}
}

// MaxTurns is the Ending of a task that spent its n turns (LOOP-8).
func MaxTurns(n int) Ending {
	return Ending{Status: StatusMaxTurns, Text: ResultMaxTurns(n)}
}

// NoAnswer is EWA-4's Ending: the task ended without an answer for reason.
func NoAnswer(reason string) Ending {
	return Ending{Status: StatusNoAnswer, Text: ResultNoAnswer(reason), Reason: reason}
}
