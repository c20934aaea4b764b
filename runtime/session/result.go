package session

import (
	"path/filepath"

	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/atomicfile"
	"github.com/murmur-go/mur/runtime/peerplane"
)

// Exit statuses of a task and of a session (LOOP-20): the agent loop's.
const (
	StatusOK             = agent.StatusOK
	StatusFailed         = agent.StatusFailed
	StatusMaxTurns       = agent.StatusMaxTurns
	StatusSpendCeiling   = agent.StatusSpendCeiling
	StatusReopenBudget   = agent.StatusReopenBudget
	StatusCanceled       = agent.StatusCanceled
	StatusNoAnswer       = agent.StatusNoAnswer
	StatusFormationEnded = agent.StatusFormationEnded
)

// BareReason is E-RUN-040's <reason> (agent.BareReason).
func BareReason(text string) string { return agent.BareReason(text) }

// writeResult replaces out/result.txt atomically, UTF-8, no
// newline added (SES-5).
func writeResult(outDir, text string) error {
	// The records directory holds a peer-file handle only as its id (PFILE-6).
	return atomicfile.Write(filepath.Join(outDir, "result.txt"), []byte(peerplane.Redact(text)), 0o600)
}
