package peerplane

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// The handle's fixed parts (tools.md PFILE-3).
const (
	// Prefix is every token's first segment: mh1.<payload>.<mac>.
	Prefix = "mh1"
	// KeySize is the minting key's length: 32 random bytes per session.
	KeySize = 32
	// MaxToken bounds the token Parse reads; a longer one is malformed.
	MaxToken = 4096
	// macDomain separates a handle's MAC input from any other MAC this
	// runtime computes; macSep (ASCII unit separator) joins the fields and
	// occurs neither in base64url nor in an audience, so no two distinct
	// (payload, audience) pairs give the same input.
	macDomain = "murmur-peer-handle-v1"
	macSep    = 0x1f
	// nonceBytes random bytes, lowercase hex, make two handles for the same
	// file and audience distinct.
	nonceBytes = 16
	// idHex is the length of a handle_id: hex of SHA-256(token).
	idHex = 16
)

// b64 is both segments' alphabet: URL-safe and unpadded, so a token sits in
// a request path unescaped.
var b64 = base64.RawURLEncoding.Strict()

// Payload is a handle's clear-text payload, fields in PFILE-3's order. It is
// not the secret: anyone holding the token can read it.
type Payload struct {
	V   int    `json:"v"`   // always 1
	Iss string `json:"iss"` // the minting session's id
	P   string `json:"p"`   // the file, relative to exports.peer_files.root
	Exp int64  `json:"exp"` // expiry, Unix ms
	N   string `json:"n"`   // 32 lowercase hex
}

// Handle is a token that parsed: its payload and the parts its MAC covers.
// A parsed handle is not yet trusted; Verify decides.
type Handle struct {
	Token   string
	Payload Payload
	body    string // the payload segment, as the MAC covers it
	mac     []byte
}

// NewKey returns a fresh minting key (PFILE-3: 32 random bytes, held in
// memory only).
func NewKey() []byte {
	k := make([]byte, KeySize)
	_, _ = rand.Read(k) // crypto/rand.Read never returns an error (Go 1.24)
	return k
}

// Nonce returns a fresh payload nonce: 16 random bytes, lowercase hex.
func Nonce() string {
	b := make([]byte, nonceBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b)
}

// Mint returns the token for p bound to audience under key: p.V is set to 1
// and an empty p.N gets a fresh Nonce. audience is used as given; callers
// pass Audience's lowercased form.
func Mint(key []byte, p Payload, audience string) (string, error) {
	if len(key) != KeySize {
		return "", errors.New("peer handle key is not 32 bytes")
	}
	p.V = 1
	if p.N == "" {
		p.N = Nonce()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return "", err
	}
	body := b64.EncodeToString(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return Prefix + "." + body + "." + b64.EncodeToString(mac(key, body, audience)), nil
}

// mac is HMAC-SHA256(key, "murmur-peer-handle-v1" 0x1f body 0x1f audience).
func mac(key []byte, body, audience string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(macDomain))
	h.Write([]byte{macSep})
	h.Write([]byte(body))
	h.Write([]byte{macSep})
	h.Write([]byte(audience))
	return h.Sum(nil)
}

// Parse reads a token's shape (PFILE-5's first check): mh1, a payload
// segment holding exactly PFILE-3's object with v 1, and a 32-byte MAC
// segment. Any other text is malformed_handle (the *Refusal MalformedHandle
// returns). Parse never consults a key.
func Parse(token string) (*Handle, error) {
	if len(token) > MaxToken {
		return nil, MalformedHandle()
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] != Prefix {
		return nil, MalformedHandle()
	}
	raw, err := b64.DecodeString(parts[1])
	if err != nil {
		return nil, MalformedHandle()
	}
	m, err := b64.DecodeString(parts[2])
	if err != nil || len(m) != sha256.Size {
		return nil, MalformedHandle()
	}
	p, ok := decodePayload(raw)
	if !ok {
		return nil, MalformedHandle()
	}
	return &Handle{Token: token, Payload: p, body: parts[1], mac: m}, nil
}

// decodePayload reads exactly the five PFILE-3 fields, each present, of its
// type, and nothing else.
func decodePayload(raw []byte) (Payload, bool) {
	var w struct {
		V   json.RawMessage `json:"v"`
		Iss *string         `json:"iss"`
		P   *string         `json:"p"`
		Exp json.RawMessage `json:"exp"`
		N   *string         `json:"n"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Payload{}, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Payload{}, false
	}
	if string(w.V) != "1" || w.Iss == nil || w.P == nil || w.N == nil || !digits(w.Exp) {
		return Payload{}, false
	}
	exp, err := strconv.ParseInt(string(w.Exp), 10, 64)
	if err != nil || *w.Iss == "" || *w.P == "" || !lowerHex(*w.N, 2*nonceBytes) {
		return Payload{}, false
	}
	return Payload{V: 1, Iss: *w.Iss, P: *w.P, Exp: exp, N: *w.N}, true
}

// digits reports whether a raw JSON value is a non-negative integer literal.
func digits(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Verify reports whether h's MAC is the one key gives its payload for
// audience, compared in constant time (PFILE-5's third check). Every
// failure — another key (a session that has ended), another audience, a
// changed payload — is the same false.
func (h *Handle) Verify(key []byte, audience string) bool {
	if len(key) != KeySize {
		key = make([]byte, KeySize) // still compute, so no failure is quicker than another
	}
	return hmac.Equal(mac(key, h.body, audience), h.mac)
}

// ID is token's handle_id: the first 16 lowercase hex characters of
// SHA-256(token), whatever the token turns out to be (PFILE-3).
func ID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])[:idHex]
}

// Audience is PFILE-2's audience of a capsule: "<card name>@<host:port>",
// lowercased.
func Audience(name, hostPort string) string {
	return strings.ToLower(name + "@" + hostPort)
}
