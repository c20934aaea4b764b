package wire

import (
	"encoding/json"
	"fmt"
)

// The channel's line types (formations.md §17); a reader ignores others.
const (
	TypeCredentials = "credentials"
	TypeAddresses   = "addresses"
)

// CancelCascade is the one value a credentials line's cancel carries: the
// roster's cancel option when it is cascade.
const CancelCascade = "cascade"

// Credentials is the channel's first line, the launcher's to a member
// (CHAN-2). Callees lists the member's callees in roster order, the order
// the member calls them in its trace (TRC-1).
type Credentials struct {
	Type        string            `json:"type"` // TypeCredentials
	FormationID string            `json:"formation_id"`
	Member      string            `json:"member"`
	VerifyKey   string            `json:"verify_key"` // base64url Ed25519 public key
	Launcher    *Launcher         `json:"launcher"`
	Callees     []string          `json:"callees"`
	Tokens      map[string]string `json:"tokens"` // callee → member token
	// Cancel is CancelCascade or absent (the roster's cancel option is off).
	Cancel string `json:"cancel,omitempty"`
	// CardKey is the formation's Agent Card signing key, base64url of its
	// Ed25519 seed: every member signs its cards with it and checks its
	// callees' cards against it (A2A §8.4). It is not VerifyKey's pair, so
	// that holding it mints no member token (AUTH-6).
	CardKey string `json:"card_key,omitempty"`
}

// Launcher is the process that launched the formation, as the credentials
// line names it (FCLI-5 formation_launcher).
type Launcher struct {
	PID          int    `json:"pid"`
	ProcessStart string `json:"process_start"`
}

// Line is c as the channel's first line, with its type set.
func (c Credentials) Line() []byte {
	c.Type = TypeCredentials
	return line(c)
}

// ParseCredentials decodes a credentials line; its error is the JSON
// decoder's. The caller checks the type and the values (CHAN-4).
func ParseCredentials(b []byte) (Credentials, error) {
	var c Credentials
	err := json.Unmarshal(b, &c)
	return c, err
}

// Addresses is an address line: where a member's callees' doors answer
// (CHAN-3).
type Addresses struct {
	Type    string    `json:"type"` // TypeAddresses
	Callees []Address `json:"callees"`
}

// Address is where a callee's door answers (CHAN-3).
type Address struct {
	Name      string `json:"name"`
	URL       string `json:"url"` // http://127.0.0.1:<port>
	SessionID string `json:"session_id"`
}

// Line is a as an address line, with its type set.
func (a Addresses) Line() []byte {
	a.Type = TypeAddresses
	return line(a)
}

// ParseAddresses decodes an address line; a line of another type is an
// error, which a reader ignores (§17).
func ParseAddresses(b []byte) (Addresses, error) {
	var a Addresses
	if err := json.Unmarshal(b, &a); err != nil {
		return Addresses{}, err
	}
	if a.Type != TypeAddresses {
		return Addresses{}, fmt.Errorf("a line of type '%s', not '%s'", a.Type, TypeAddresses)
	}
	return a, nil
}
