package session

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/atomicfile"
	"github.com/murmur-go/mur/runtime/peerplane"
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

// SES-5's result texts.

func resultMaxTokens(text string, n int) string {
	return fmt.Sprintf("%s\n[truncated: the reply stopped at the inference.max_tokens output cap of %d tokens]", text, n)
}

func resultFailed(reason string) string { return "error: " + reason }

func resultMaxTurns(n int) string {
	return fmt.Sprintf("stopped: inference.max_turns (%d) reached before the task finished", n)
}

func resultSpend(ceiling, used, needed int64) string {
	return fmt.Sprintf("stopped: spend ceiling reached: session ceiling %d, used %d, this call needed %d; retrying will not get past it", ceiling, used, needed)
}

const resultTurnBudget = "error: task turn budget exhausted"

const resultReopenBudget = "error: task reopen budget exhausted"

func resultCanceled(by string) string { return "canceled: " + by }

func resultNoAnswer(reason string) string { return "no answer: " + reason }

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

// writeResult replaces out/result.txt atomically, UTF-8, no
// newline added (SES-5).
func writeResult(outDir, text string) error {
	// The records directory holds a peer-file handle only as its id (PFILE-6).
	return atomicfile.Write(filepath.Join(outDir, "result.txt"), []byte(peerplane.Redact(text)), 0o600)
}
