package launcher

import (
	"encoding/json"

	"github.com/murmur-go/mur/launcher/roster"
)

// The channel's lines (formations.md §17), newline-delimited JSON with a type
// discriminator. runtime/formation reads them; the two packages share no
// code (STYLE §2), so the end-to-end tests hold them together.
type credentialsLine struct {
	Type        string            `json:"type"` // "credentials"
	FormationID string            `json:"formation_id"`
	Member      string            `json:"member"`
	VerifyKey   string            `json:"verify_key"`
	Launcher    launcherRef       `json:"launcher"`
	Callees     []string          `json:"callees"` // roster order (ours)
	Tokens      map[string]string `json:"tokens"`  // callee → member token
	// Cancel is the roster's cancel option, only when cascade (ours, issue
	// 12): absent keeps the line exactly as before.
	Cancel string `json:"cancel,omitempty"`
}

type launcherRef struct {
	PID          int    `json:"pid"`
	ProcessStart string `json:"process_start"`
}

type addressesLine struct {
	Type    string    `json:"type"` // "addresses"
	Callees []address `json:"callees"`
}

type address struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	SessionID string `json:"session_id"`
}

// firstLine is member m's credentials line (CHAN-2), '\n'-terminated;
// cancel is the roster's cancel option.
func (c *credentials) firstLine(m *roster.Admitted, cancel string, pid int, start string) []byte {
	l := credentialsLine{Type: "credentials", FormationID: c.formationID, Member: m.Name,
		VerifyKey: c.verifyKey(), Launcher: launcherRef{PID: pid, ProcessStart: start},
		Callees: append([]string{}, m.Callees...), Tokens: make(map[string]string, len(m.Callees))}
	if cancel == roster.CancelCascade {
		l.Cancel = cancel
	}
	for _, callee := range m.Callees {
		l.Tokens[callee] = string(c.member[m.Name][callee])
	}
	b, _ := json.Marshal(l) // strings and ints only: cannot fail
	return append(b, '\n')
}

// addressLine is the address line for a member with callees (CHAN-3).
func addressLine(callees []address) []byte {
	b, _ := json.Marshal(addressesLine{Type: "addresses", Callees: callees})
	return append(b, '\n')
}
