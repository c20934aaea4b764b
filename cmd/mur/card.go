package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/runtime/murhome"
)

// cmdCard is `mur card verify <url> [--key <file>] [--json]` (A2A §8.4.3).
var cmdCard = &command{
	name:    "card",
	summary: "verify a door's signed Agent Card",
	run:     runCard,
}

const cardUsage = `Usage: mur card verify <url> [--key <file>] [--json]

Fetches the Agent Card at <url>/.well-known/agent-card.json (or <url> itself
when it names a .json file) and verifies its signatures (A2A §8.4): a JWS over
the RFC 8785 canonical card without its signatures, kid in the protected
header. --key names the public key to verify with, Ed25519 (alg
EdDSA) or ECDSA on P-256, P-384 or P-521 (ES256, ES384, ES512): a PEM public
key, a PEM private key, a JWK (RFC 7517) JSON object, or an Ed25519 key's raw
32 bytes base64url; the default is the operator's card key in $MURMUR_HOME
(keys/card-ed25519.pem), which every standalone door of this home signs with. Prints "verified: <kid>" and exits 0
when a signature verifies; exits 1 when the card is unsigned or none
verifies. --json prints one JSON object instead (docs/json.md).`

// cardJSON is `mur card verify --json` (docs/json.md).
type cardJSON struct {
	URL      string `json:"url"`
	Name     string `json:"name"`
	Signed   bool   `json:"signed"`
	Verified bool   `json:"verified"`
	KeyID    string `json:"kid,omitempty"`
	Alg      string `json:"alg,omitempty"`
	Error    string `json:"error,omitempty"`
}

func runCard(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] != "verify" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprintln(env.Stdout, cardUsage)
			return 0
		}
		return usageError(env, "card", "want 'mur card verify <url>'")
	}
	fs := flag.NewFlagSet("card verify", flag.ContinueOnError)
	keyFile := fs.String("key", "", "the public key `file` to verify with: PEM, JWK or Ed25519 base64url (default: the operator's card key)")
	jsonOut := fs.Bool("json", false, "print one JSON object (docs/json.md)")
	pos, code, done := parseInterspersed(env, "card", cardUsage, fs, args[1:])
	if done {
		return code
	}
	switch {
	case len(pos) == 0:
		return usageError(env, "card", "missing the door URL")
	case len(pos) > 1:
		return usageError(env, "card", "unexpected argument '"+pos[1]+"'")
	}
	u, err := url.Parse(pos[0])
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return usageError(env, "card", "'"+pos[0]+"' is not a door URL (want http://<host>:<port>)")
	}
	pub, err := cardVerifyKey(env, *keyFile)
	if err != nil {
		return fail(env, "card", err)
	}
	out := cardJSON{URL: pos[0]}
	card, err := fetchCard(ctx, pos[0])
	if err == nil {
		out.Name = cardName(card)
		var v agentcard.Verified
		v, err = agentcard.Verify(card, pub)
		out.Signed = !errors.Is(err, agentcard.ErrUnsigned)
		out.Verified, out.KeyID, out.Alg = err == nil, v.KeyID, v.Algorithm
	}
	if err != nil {
		out.Error = err.Error()
	}
	if *jsonOut {
		if werr := writeJSON(env.Stdout, out); werr != nil {
			return fail(env, "card", werr)
		}
	} else if err == nil {
		fmt.Fprintf(env.Stdout, "verified: %s (%s), card %s at %s\n", out.KeyID, out.Alg, out.Name, out.URL)
	} else {
		fmt.Fprintf(env.Stderr, "mur card: %s: %v\n", out.URL, err)
	}
	if !out.Verified {
		return 1
	}
	return 0
}

// cardVerifyKey reads --key, or the operator's card key when it is "".
func cardVerifyKey(env *Env, file string) (crypto.PublicKey, error) {
	if file == "" {
		home, err := murhome.Home(env.Getenv)
		if err != nil {
			return nil, err
		}
		pub, err := murhome.CardPublicKey(home)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no card key in %s yet (a door makes it on its first run); give --key", murhome.CardKeyPath(home))
		}
		return pub, err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var k any
	if blk, _ := pem.Decode(b); blk != nil {
		switch blk.Type {
		case "PUBLIC KEY":
			k, err = x509.ParsePKIXPublicKey(blk.Bytes)
		case "PRIVATE KEY":
			k, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
		case "EC PRIVATE KEY":
			k, err = x509.ParseECPrivateKey(blk.Bytes)
		default:
			return nil, fmt.Errorf("%s: a PEM %s, want PUBLIC KEY or PRIVATE KEY", file, blk.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	} else if trimmed := bytes.TrimSpace(b); len(trimmed) > 0 && trimmed[0] == '{' {
		var jwk jose.JSONWebKey
		if err := jwk.UnmarshalJSON(trimmed); err != nil {
			return nil, fmt.Errorf("%s: not a JWK: %w", file, err)
		}
		k = jwk.Key
	} else {
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(string(trimmed), "="))
		if err != nil || len(raw) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("%s: neither a PEM key, a JWK nor 32 bytes of base64url", file)
		}
		return ed25519.PublicKey(raw), nil
	}
	switch k := k.(type) {
	case ed25519.PublicKey, *ecdsa.PublicKey:
		return k, nil
	case ed25519.PrivateKey:
		return k.Public(), nil
	case *ecdsa.PrivateKey:
		return k.Public(), nil
	}
	return nil, fmt.Errorf("%s: a %T, want an Ed25519 or ECDSA key", file, k)
}

// fetchCard GETs the card at a door URL (its well-known path) or a card URL.
func fetchCard(ctx context.Context, door string) ([]byte, error) {
	target := strings.TrimRight(door, "/") + a2a.WellKnownCardPath
	if strings.HasSuffix(door, ".json") {
		target = door
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch the card: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("fetch the card: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", target, resp.StatusCode)
	}
	return b, nil
}

func cardName(card []byte) string {
	var c struct{ Name string }
	_ = json.Unmarshal(card, &c)
	return c.Name
}
