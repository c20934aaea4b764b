package launcher

import (
	"encoding/base64"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/wire"
)

// firstLine is member m's credentials line (CHAN-2), '\n'-terminated;
// cancel is the roster's cancel option.
func (c *credentials) firstLine(m *roster.Admitted, cancel string, pid int, start string) []byte {
	l := wire.Credentials{FormationID: c.formationID, Member: m.Name,
		VerifyKey: c.verifyKey(), Launcher: &wire.Launcher{PID: pid, ProcessStart: start},
		Callees: append([]string{}, m.Callees...), Tokens: make(map[string]string, len(m.Callees))}
	if cancel == roster.CancelCascade {
		l.Cancel = cancel
	}
	if c.cardKey != nil {
		l.CardKey = base64.RawURLEncoding.EncodeToString(c.cardKey.Seed())
	}
	for _, callee := range m.Callees {
		l.Tokens[callee] = string(c.member[m.Name][callee])
	}
	return l.Line()
}

// addressLine is the address line for a member with callees (CHAN-3).
func addressLine(callees []wire.Address) []byte {
	return wire.Addresses{Callees: callees}.Line()
}
