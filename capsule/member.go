package capsule

import (
	"crypto/ed25519"
	"time"

	"github.com/murmur-go/mur/runtime/session"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/tool/member"
)

// wireMember hands a formation member that roster.yaml lets call another its
// call-member and end-without-answer (tools.md §10, §11); other sessions are
// left alone. Prepare already applied MURMUR_DELEGATION_TIMEOUT_SECS to
// lifecycle.delegation_deadline_secs (CALL-5) and added W-RUN-008 (CRED-2).
func wireMember(l *session.Launch) error {
	m := l.Member
	if m == nil || len(m.Callees) == 0 {
		return nil
	}
	impls, err := member.Tools(member.Config{
		Callees:   m.Callees,
		Directory: m,
		Allow:     l.Manifest.Capabilities.Network.Allow,
		Deadline:  time.Duration(l.Manifest.Lifecycle.DelegationDeadlineSecs) * time.Second,
		Cascade:   m.Cascade,
		CardKey:   cardPublic(m.CardKey),
		Formation: m.FormationID,
	})
	if err != nil {
		return err
	}
	prev := l.Impls
	l.Impls = func(s *session.Session) map[string]tool.Tool {
		out := map[string]tool.Tool{}
		if prev != nil {
			for k, v := range prev(s) {
				out[k] = v
			}
		}
		for k, v := range impls {
			out[k] = v
		}
		return out
	}
	return nil
}

// cardPublic is the public half of the formation's card key; nil for none.
func cardPublic(k ed25519.PrivateKey) ed25519.PublicKey {
	if k == nil {
		return nil
	}
	return k.Public().(ed25519.PublicKey)
}
