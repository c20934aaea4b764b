// Package credential mints and verifies formation tokens: EdDSA JWTs signed
// with a per-launch Ed25519 key (door.md GO-5, formations.md CRED-3). The
// launcher mints; doors and members verify with the public half only.
//
// # Example
//
//	pub, priv, _ := ed25519.GenerateKey(nil)
//	tok, _ := credential.Mint(priv, credential.MemberClaims("frm_…", "lead", "worker"))
//	c, err := credential.Verify(pub, "frm_…", tok) // err == nil, c.Subject == "lead"
package credential

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/murmur-go/mur/a2a"
)

// Token is a secret bearer token. It never prints: fmt and slog show it redacted.
type Token string

// String redacts the token; use string(t) where the value is really needed.
func (Token) String() string { return "[redacted]" }

// LogValue redacts the token in slog output.
func (Token) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// Claims are a formation token's claims (door.md GO-5).
type Claims struct {
	Issuer   string   // formation id
	Subject  string   // calling member, or "launcher"
	Audience []string // "<formation id>/<callee>"; the launcher token names every member
	Scope    string   // a2a.MemberTokenScope or a2a.LauncherTokenScope
	IssuedAt time.Time
	ID       string // jti, random, for traces
}

// Launcher reports whether the claims are the launcher's own token.
func (c *Claims) Launcher() bool { return c.Scope == a2a.LauncherTokenScope }

// Names reports whether the audience names member of formation.
func (c *Claims) Names(formationID, member string) bool {
	want := a2a.FormationAudience(formationID, member)
	for _, a := range c.Audience {
		if a == want {
			return true
		}
	}
	return false
}

// MemberClaims are the claims of the member token for the edge caller → callee.
func MemberClaims(formationID, caller, callee string) Claims {
	return Claims{Issuer: formationID, Subject: caller, Audience: []string{a2a.FormationAudience(formationID, callee)},
		Scope: a2a.MemberTokenScope, IssuedAt: time.Now(), ID: newJTI()}
}

// LauncherClaims are the claims of the launcher's readiness token for every member.
func LauncherClaims(formationID string, members []string) Claims {
	aud := make([]string, len(members))
	for i, m := range members {
		aud[i] = a2a.FormationAudience(formationID, m)
	}
	return Claims{Issuer: formationID, Subject: a2a.LauncherSubject, Audience: aud,
		Scope: a2a.LauncherTokenScope, IssuedAt: time.Now(), ID: newJTI()}
}

func newJTI() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Mint signs c with priv. The token has no exp (seed: no expiry).
func Mint(priv ed25519.PrivateKey, c Claims) (Token, error) {
	mc := jwt.MapClaims{
		"iss":   c.Issuer,
		"sub":   c.Subject,
		"scope": c.Scope,
		"iat":   c.IssuedAt.Unix(),
		"jti":   c.ID,
	}
	if c.Scope == a2a.LauncherTokenScope {
		mc["aud"] = c.Audience
	} else if len(c.Audience) == 1 {
		mc["aud"] = c.Audience[0]
	} else {
		mc["aud"] = c.Audience
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, mc).SignedString(priv)
	if err != nil {
		return "", fmt.Errorf("sign formation token: %w", err)
	}
	return Token(s), nil
}

// ErrInvalid is every failure of GO-5 steps 1, 3 and 4: the door answers all
// of them with the same 401 invalid_token.
var ErrInvalid = errors.New("formation token does not verify")

// LooksLikeJWT reports whether a bearer has three dot-separated segments, so
// the door checks it as a formation token rather than a door token (GO-5).
func LooksLikeJWT(bearer string) bool { return strings.Count(bearer, ".") == 2 }

var memberName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// checkHeader is GO-5 step 1's header: {"alg":"EdDSA","typ":"JWT"}, typ
// optional. Any other parameter (crit, kid, jku, jwk, x5u, b64, cty …) is one
// this code does not implement, and RFC 7515 §4.1.11 refuses a token whose
// crit names such a parameter; mur refuses every unknown parameter, since a
// door that ignored one would read the token differently from whoever wrote it.
func checkHeader(h map[string]any) error {
	for k, v := range h {
		switch {
		case k == "alg":
		case k == "typ" && v == "JWT":
		default:
			return fmt.Errorf("header parameter %q is not one this door implements", k)
		}
	}
	return nil
}

// Verify runs GO-5 steps 1, 3 and 4 against formation formationID with key
// pub: a header of alg EdDSA and typ JWT only (checkHeader), signature, iss,
// scope, sub, the form of every aud entry, and no exp or nbf. The caller checks which member the audience names (step 5).
// Every failure is ErrInvalid.
func Verify(pub ed25519.PublicKey, formationID, token string) (*Claims, error) {
	mc := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(token, mc, func(t *jwt.Token) (any, error) {
		if err := checkHeader(t.Header); err != nil {
			return nil, err
		}
		return pub, nil
	}, jwt.WithValidMethods([]string{"EdDSA"}))
	if err != nil {
		return nil, ErrInvalid
	}
	if _, has := mc["exp"]; has {
		return nil, ErrInvalid
	}
	if _, has := mc["nbf"]; has {
		return nil, ErrInvalid
	}
	c := &Claims{}
	var ok bool
	if c.Issuer, ok = mc["iss"].(string); !ok || c.Issuer != formationID {
		return nil, ErrInvalid
	}
	if c.Scope, ok = mc["scope"].(string); !ok || (c.Scope != a2a.MemberTokenScope && c.Scope != a2a.LauncherTokenScope) {
		return nil, ErrInvalid
	}
	if c.Subject, ok = mc["sub"].(string); !ok {
		return nil, ErrInvalid
	}
	// The scope tells the two kinds apart: a member may itself be named
	// "launcher", but only the launcher token carries the launcher's scope.
	if c.Launcher() && c.Subject != a2a.LauncherSubject || !c.Launcher() && !memberName.MatchString(c.Subject) {
		return nil, ErrInvalid
	}
	aud, err := mc.GetAudience()
	if err != nil || len(aud) == 0 {
		return nil, ErrInvalid
	}
	for _, a := range aud {
		m, found := strings.CutPrefix(a, formationID+"/")
		if !found || !memberName.MatchString(m) {
			return nil, ErrInvalid
		}
	}
	c.Audience = aud
	if iat, err := mc.GetIssuedAt(); err == nil && iat != nil {
		c.IssuedAt = iat.Time
	}
	c.ID, _ = mc["jti"].(string)
	return c, nil
}
