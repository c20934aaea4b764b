package door

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/credential"
)

// OperatorCredential is the name of the token that holds every scope (AUTH-2).
const OperatorCredential = "operator"

// DoorTokenPrefix starts every door token (GO-4).
const DoorTokenPrefix = "mdt_"

// Scopes are the door-token scopes, method names (AUTH-3), in CARD-5 order.
var Scopes = []string{
	a2a.MethodSendMessage, a2a.MethodSendStreamingMessage, a2a.MethodSubscribeToTask, a2a.MethodStreamWatch,
	a2a.MethodGetTask, a2a.MethodListTasks, a2a.MethodCancelTask, a2a.MethodSessionStop,
}

// Credential is a declared network.authentication.credentials entry.
type Credential struct {
	Name   string
	Scopes []string
}

// Token is one minted door token and what it grants.
type Token struct {
	Credential string
	Scopes     []string
	Value      credential.Token
}

// MintTokens mints the session's door tokens (AUTH-2, GO-4): operator first
// with every scope, then one per declared credential with exactly its
// scopes. A name containing ':' or the operator's own name, or an unknown
// scope, is refused (the manifest loader refuses them first).
func MintTokens(declared []Credential) ([]Token, error) {
	out := make([]Token, 0, len(declared)+1)
	op, err := newDoorToken()
	if err != nil {
		return nil, err
	}
	out = append(out, Token{Credential: OperatorCredential, Scopes: append([]string{}, Scopes...), Value: op})
	for _, c := range declared {
		if c.Name == "" || c.Name == OperatorCredential || strings.Contains(c.Name, ":") {
			return nil, fmt.Errorf("door: credential name %q is not usable", c.Name)
		}
		for _, sc := range c.Scopes {
			if scopeBit(sc) == 0 {
				return nil, fmt.Errorf("door: credential %q names unknown scope %q", c.Name, sc)
			}
		}
		v, err := newDoorToken()
		if err != nil {
			return nil, err
		}
		out = append(out, Token{Credential: c.Name, Scopes: append([]string{}, c.Scopes...), Value: v})
	}
	return out, nil
}

// newDoorToken is "mdt_" + 32 random bytes, base64url without padding (GO-4).
func newDoorToken() (credential.Token, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("door: mint token: %w", err)
	}
	return credential.Token(DoorTokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])), nil
}

// scopeBit is a method's bit in a grant's scope mask; 0 for a name that is
// no scope.
func scopeBit(method string) uint16 {
	switch method {
	case a2a.MethodSendMessage:
		return 1 << 0
	case a2a.MethodSendStreamingMessage:
		return 1 << 1
	case a2a.MethodSubscribeToTask:
		return 1 << 2
	case a2a.MethodStreamWatch:
		return 1 << 3
	case a2a.MethodGetTask:
		return 1 << 4
	case a2a.MethodListTasks:
		return 1 << 5
	case a2a.MethodCancelTask:
		return 1 << 6
	case a2a.MethodSessionStop:
		return 1 << 7
	case a2a.MethodGetExtendedAgentCard:
		return 1 << 8
	}
	return 0
}

func scopeMask(scopes []string) uint16 {
	var m uint16
	for _, s := range scopes {
		m |= scopeBit(s)
	}
	return m
}

// grant is what an admitted credential may do (AUTH-3, AUTH-6).
type grant struct {
	credential string
	member     string // the calling member of a member token
	scopes     uint16
	doorToken  bool // door tokens reach GetExtendedAgentCard without a scope
	// delegation is set on a completion token's grant: it reaches no method
	// and carries only the completion of that one delegation (PEER-5).
	delegation string
}

// allows reports whether g reaches method (ORD-1 step 11).
func (g *grant) allows(method string) bool {
	if method == a2a.MethodGetExtendedAgentCard && g.doorToken {
		return true
	}
	b := scopeBit(method)
	return b != 0 && g.scopes&b == b
}

// tokenTable maps SHA-256(token) to its grant (GO-4). Lookups compare every
// entry in constant time, so timing tells nothing about near misses.
type tokenTable struct {
	hashes [][sha256.Size]byte
	grants []*grant
}

func newTokenTable(tokens []Token) *tokenTable {
	t := &tokenTable{}
	for _, tk := range tokens {
		t.hashes = append(t.hashes, sha256.Sum256([]byte(tk.Value)))
		t.grants = append(t.grants, &grant{credential: tk.Credential, scopes: scopeMask(tk.Scopes), doorToken: true})
	}
	return t
}

func (t *tokenTable) lookup(bearer string) *grant {
	var buf [256]byte // a bearer of usual length is hashed from the stack
	h := sha256.Sum256(append(buf[:0], bearer...))
	var found *grant
	for i := range t.hashes {
		if subtle.ConstantTimeCompare(h[:], t.hashes[i][:]) == 1 {
			found = t.grants[i]
		}
	}
	return found
}
