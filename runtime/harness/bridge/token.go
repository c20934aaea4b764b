package bridge

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
)

// tokenPrefix starts every bridge token (BRG-1).
const tokenPrefix = "mtt_"

// redacted is what every printing of a Token shows.
const redacted = tokenPrefix + "[redacted]"

// Token is a session's bearer token. Printing, logging or marshalling it
// shows only redacted; Reveal returns the secret for the two places it
// belongs (claude's mcp.json, codex's proxy file).
type Token struct{ secret string }

// newToken mints "mtt_" + 32 random bytes, base64url without padding.
func newToken() Token {
	return Token{secret: tokenPrefix + base64.RawURLEncoding.EncodeToString(random(32))}
}

// Reveal returns the token itself.
func (t Token) Reveal() string { return t.secret }

// String implements fmt.Stringer, redacted.
func (t Token) String() string { return redacted }

// GoString implements fmt.GoStringer (%#v), redacted.
func (t Token) GoString() string { return redacted }

// LogValue implements slog.LogValuer, redacted.
func (t Token) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalText implements encoding.TextMarshaler, redacted.
func (t Token) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// matches reports whether got is the token, in constant time.
func (t Token) matches(got string) bool {
	return t.secret != "" && subtle.ConstantTimeCompare([]byte(got), []byte(t.secret)) == 1
}

// newSessionID is an MCP session id: 32 hex digits (BRG-2).
func newSessionID() string { return hex.EncodeToString(random(16)) }

// random returns n bytes from crypto/rand, which never fails (it crashes
// the program irrecoverably instead, per its documentation).
func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
