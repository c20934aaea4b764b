package launcher

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/credential"
)

// credentials are one launch's secrets (LAUNCH-1 step 3, CRED-3): minted
// before any member starts and held only in the launcher's memory. The
// private key is never serialized; drop forgets every secret.
type credentials struct {
	formationID string
	pub         ed25519.PublicKey
	priv        ed25519.PrivateKey
	cardKey     ed25519.PrivateKey                     // the members' Agent Card key (A2A §8.4)
	launcher    credential.Token                       // sub launcher, GetExtendedAgentCard
	member      map[string]map[string]credential.Token // caller → callee → token
}

// mint makes the formation id, the Ed25519 key pair and every token: one
// member token per edge and the launcher's own token for every member. It
// gives up with context.Cause once ctx ends (a signal: up to 65,280 edges
// are signed here).
func mint(ctx context.Context, f *roster.Formation) (*credentials, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate formation key: %w", err)
	}
	_, cardKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate the formation's card key: %w", err)
	}
	c := &credentials{formationID: a2a.NewID(a2a.PrefixFormation), pub: pub, priv: priv, cardKey: cardKey,
		member: make(map[string]map[string]credential.Token)}
	names := make([]string, len(f.Members))
	for i, m := range f.Members {
		names[i] = m.Name
	}
	if c.launcher, err = credential.Mint(priv, credential.LauncherClaims(c.formationID, names)); err != nil {
		return nil, err
	}
	for _, e := range f.Edges {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		tok, err := credential.Mint(priv, credential.MemberClaims(c.formationID, e.From, e.To))
		if err != nil {
			return nil, err
		}
		if c.member[e.From] == nil {
			c.member[e.From] = make(map[string]credential.Token)
		}
		c.member[e.From][e.To] = tok
	}
	return c, nil
}

// verifyKey is the public key as the channel carries it (§17).
func (c *credentials) verifyKey() string { return base64.RawURLEncoding.EncodeToString(c.pub) }

// drop forgets the private key and every token (LAUNCH-1 step 10).
func (c *credentials) drop() {
	clear(c.priv)
	c.priv = nil
	clear(c.cardKey)
	c.cardKey = nil
	c.launcher = ""
	c.member = nil
}
