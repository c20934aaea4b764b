package agentcard

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/go-jose/go-jose/v4"
)

// Signature is one AgentCardSignature (A2A §8.4.2): the JWS protected
// header and signature, base64url, the payload detached.
type Signature struct {
	Protected string         `json:"protected"`
	Signature string         `json:"signature"`
	Header    map[string]any `json:"header,omitempty"`
}

// OperatorKeyPrefix names the operator's card key in a kid: a door signs
// with the key in $MURMUR_HOME.
const OperatorKeyPrefix = "murmur-operator"

// FormationKeyPrefix followed by the formation id is the kid of a formation
// member's card: it signs with the formation's card key.
const FormationKeyPrefix = "murmur-formation:"

// KeyID is the kid a key signs under: prefix, ":", then the first 16 hex of
// SHA-256 of the public key, so that a verifier can tell keys apart.
func KeyID(prefix string, pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return prefix + ":" + hex.EncodeToString(sum[:8])
}

// Sign appends to card (an Agent Card's JSON object) a signatures member
// holding one EdDSA JWS over Canonical(card), with alg, typ JOSE and kid in
// its protected header (A2A §8.4.2). Every other byte of the card is kept;
// a card that is already signed is an error.
func Sign(card []byte, key ed25519.PrivateKey, kid string) ([]byte, error) {
	payload, err := Canonical(card)
	if err != nil {
		return nil, err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: key},
		(&jose.SignerOptions{}).WithType("JOSE").WithHeader("kid", kid))
	if err != nil {
		return nil, fmt.Errorf("card signer: %w", err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return nil, fmt.Errorf("sign the card: %w", err)
	}
	compact, err := obj.DetachedCompactSerialize()
	if err != nil {
		return nil, fmt.Errorf("sign the card: %w", err)
	}
	protected, sig, _ := strings.Cut(compact, "..")
	var m map[string]json.RawMessage
	if err := json.Unmarshal(card, &m); err != nil {
		return nil, fmt.Errorf("the card is not a JSON object: %w", err)
	}
	if _, ok := m["signatures"]; ok {
		return nil, errors.New("the card is already signed")
	}
	b, err := json.Marshal([]Signature{{Protected: protected, Signature: sig}})
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimRight(card, " \t\r\n")
	if len(trimmed) == 0 || trimmed[len(trimmed)-1] != '}' {
		return nil, errors.New("the card is not a JSON object")
	}
	out := slices.Clone(trimmed[:len(trimmed)-1])
	if len(m) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"signatures":`...)
	out = append(out, b...)
	return append(out, '}'), nil
}

// Verified is a signature that verified: its kid and algorithm.
type Verified struct {
	KeyID     string
	Algorithm string
}

// Errors of Verify.
var (
	ErrUnsigned     = errors.New("the card has no signatures")
	ErrNotVerified  = errors.New("no signature on the card verifies with the key")
	ErrBadSignature = errors.New("a signature on the card is malformed")
)

// Verify checks card's signatures against pub (A2A §8.4.3): the first one
// whose protected header names a kid and the algorithm of pub's kind —
// EdDSA for an Ed25519 key, ES256, ES384 or ES512 for an ECDSA key on
// P-256, P-384 or P-521 — and whose JWS verifies over Canonical(card), is
// returned. No signatures is ErrUnsigned; none verifying is ErrNotVerified
// (wrapping what the last one failed with).
func Verify(card []byte, pub crypto.PublicKey) (Verified, error) {
	alg, err := keyAlgorithm(pub)
	if err != nil {
		return Verified{}, err
	}
	var c struct {
		Signatures []Signature `json:"signatures"`
	}
	if err := json.Unmarshal(card, &c); err != nil {
		return Verified{}, fmt.Errorf("the card is not an Agent Card: %w", err)
	}
	if len(c.Signatures) == 0 {
		return Verified{}, ErrUnsigned
	}
	payload, err := Canonical(card)
	if err != nil {
		return Verified{}, err
	}
	last := ErrBadSignature
	for _, s := range c.Signatures {
		obj, err := jose.ParseDetached(s.Protected+".."+s.Signature, payload, []jose.SignatureAlgorithm{alg})
		if err != nil {
			last = fmt.Errorf("%w: %v", ErrBadSignature, err)
			continue
		}
		h := obj.Signatures[0].Protected
		if h.KeyID == "" {
			last = fmt.Errorf("%w: its protected header names no kid", ErrBadSignature)
			continue
		}
		if _, err := obj.Verify(pub); err != nil {
			last = fmt.Errorf("signature %s: %v", h.KeyID, err)
			continue
		}
		return Verified{KeyID: h.KeyID, Algorithm: h.Algorithm}, nil
	}
	return Verified{}, fmt.Errorf("%w (%v)", ErrNotVerified, last)
}

// keyAlgorithm is the one JWS algorithm a public key verifies.
func keyAlgorithm(pub crypto.PublicKey) (jose.SignatureAlgorithm, error) {
	switch k := pub.(type) {
	case ed25519.PublicKey:
		return jose.EdDSA, nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
	}
	return "", fmt.Errorf("a %T is not a card key (want Ed25519, or ECDSA on P-256, P-384 or P-521)", pub)
}

// Canonical is the payload an Agent Card's signatures sign (A2A §8.4.1):
// the card without its signatures member, without proto3 defaults of fields
// without presence, and without empty values — "", null, and arrays and
// objects that hold nothing once emptied, as the official SDKs read field
// presence — in RFC 8785 (JCS) form: keys
// sorted by 16-bit code units, no whitespace, ECMAScript number and string
// forms.
func Canonical(card []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(card))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the card is not JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the card is not a JSON object")
	}
	delete(m, "signatures")
	dropDefaults(m)
	cleaned, _ := clean(m)
	if cleaned == nil {
		cleaned = map[string]any{}
	}
	var buf bytes.Buffer
	if err := writeJCS(&buf, cleaned); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// dropDefaults removes the card's proto3 fields without presence that hold
// their default (A2A §8.4.1): the two plain bools of the AgentCard tree,
// AgentExtension.required and AuthorizationCodeOAuthFlow.pkceRequired, when
// false. Every other scalar of the tree is REQUIRED or optional, and kept.
func dropDefaults(card map[string]any) {
	dropFalse := func(m map[string]any, key string) {
		if b, ok := m[key].(bool); ok && !b {
			delete(m, key)
		}
	}
	if caps, ok := card["capabilities"].(map[string]any); ok {
		exts, _ := caps["extensions"].([]any)
		for _, e := range exts {
			if ext, ok := e.(map[string]any); ok {
				dropFalse(ext, "required")
			}
		}
	}
	schemes, _ := card["securitySchemes"].(map[string]any)
	for _, sc := range schemes {
		scheme, _ := sc.(map[string]any)
		oauth, _ := scheme["oauth2SecurityScheme"].(map[string]any)
		flows, _ := oauth["flows"].(map[string]any)
		if ac, ok := flows["authorizationCode"].(map[string]any); ok {
			dropFalse(ac, "pkceRequired")
		}
	}
}

// clean drops empty values; ok is false when v itself is empty.
func clean(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, false
	case string:
		return x, x != ""
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if c, ok := clean(e); ok {
				out = append(out, c)
			}
		}
		return out, len(out) > 0
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if c, ok := clean(e); ok {
				out[k] = c
			}
		}
		return out, len(out) > 0
	}
	return v, true
}

// writeJCS writes v in RFC 8785 form.
func writeJCS(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("number %s is not an IEEE 754 double (RFC 8785 §3.2.2.3)", x)
		}
		buf.WriteString(es6Number(f))
	case string:
		writeJCSString(buf, x)
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJCS(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJCSString(buf, k)
			buf.WriteByte(':')
			if err := writeJCS(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("canonical JSON: unexpected %T", v)
	}
	return nil
}

// compareUTF16 orders strings by their 16-bit code units (RFC 8785 §3.2.3).
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// writeJCSString writes s as RFC 8785 §3.2.2.2 does (ECMAScript
// JSON.stringify): '"' and '\' escaped, control characters as \b \t \n \f
// \r or \u00xx, everything else as itself.
func writeJCSString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\t':
			buf.WriteString(`\t`)
		case '\n':
			buf.WriteString(`\n`)
		case '\f':
			buf.WriteString(`\f`)
		case '\r':
			buf.WriteString(`\r`)
		default:
			if r < 0x20 {
				fmt.Fprintf(buf, `\u%04x`, r)
			} else {
				buf.WriteRune(r)
			}
		}
	}
	buf.WriteByte('"')
}

// es6Number is ECMAScript's Number.prototype.toString for a finite double
// (RFC 8785 §3.2.2.3): the shortest round-tripping digits, in plain notation
// for exponents from -7 to 20 and in exponent notation beyond.
func es6Number(f float64) string {
	if f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n, k := x+1, len(digits) // the decimal point sits after n digits
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	d := digits[:1]
	if k > 1 {
		d += "." + digits[1:]
	}
	return sign + d + "e" + es + strconv.Itoa(abs(n-1))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
