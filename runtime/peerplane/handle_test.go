package peerplane

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
)

var (
	testKey = bytes.Repeat([]byte{7}, KeySize)
	testPay = Payload{Iss: "ses_019f01a940ce7761854e768ecbe3d399", P: "sub/report.md", Exp: 1755950300000, N: "7f3c0a1b2c3d4e5f60718293a4b5c6d7"}
)

const testAud = "reporter@127.0.0.1:41234"

// TestMintIsPFILE3: the token is mh1.<b64url(payload)>.<b64url(mac)>, the
// payload PFILE-3's object in its order, the MAC HMAC-SHA256 over exactly
// "murmur-peer-handle-v1" 0x1f <payload segment> 0x1f <audience>.
func TestMintIsPFILE3(t *testing.T) {
	t.Parallel()
	tok, err := Mint(testKey, testPay, testAud)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || parts[0] != "mh1" {
		t.Fatalf("Mint() = %q, want mh1.<payload>.<mac>", tok)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"v":1,"iss":"ses_019f01a940ce7761854e768ecbe3d399","p":"sub/report.md","exp":1755950300000,"n":"7f3c0a1b2c3d4e5f60718293a4b5c6d7"}`; string(payload) != want {
		t.Errorf("payload = %s, want %s", payload, want)
	}
	h := hmac.New(sha256.New, testKey)
	h.Write([]byte("murmur-peer-handle-v1\x1f" + parts[1] + "\x1f" + testAud))
	if got, want := parts[2], base64.RawURLEncoding.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("mac = %s, want %s", got, want)
	}
	golden.Check(t, "token", tok+"\n"+ID(tok)+"\n")
}

// TestVerify: the minting key and audience verify; any other key, audience
// or payload is the same false (PFILE-5 check 3).
func TestVerify(t *testing.T) {
	t.Parallel()
	tok, _ := Mint(testKey, testPay, testAud)
	h, err := Parse(tok)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Verify(testKey, testAud) {
		t.Fatal("Verify(minting key, audience) = false")
	}
	other := bytes.Repeat([]byte{8}, KeySize)
	changed := testPay
	changed.P = "other.md"
	forged, _ := Mint(other, changed, testAud)
	parts, fparts := strings.Split(tok, "."), strings.Split(forged, ".")
	tampered := parts[0] + "." + fparts[1] + "." + parts[2]
	ht, err := Parse(tampered)
	if err != nil {
		t.Fatal(err)
	}
	for name, ok := range map[string]bool{
		"another key":       h.Verify(other, testAud),
		"no key":            h.Verify(nil, testAud),
		"another audience":  h.Verify(testKey, "reporter@127.0.0.1:41235"),
		"audience case":     h.Verify(testKey, strings.ToUpper(testAud)),
		"a changed payload": ht.Verify(testKey, testAud),
	} {
		if ok {
			t.Errorf("Verify(%s) = true", name)
		}
	}
	if h.Payload != (Payload{V: 1, Iss: testPay.Iss, P: testPay.P, Exp: testPay.Exp, N: testPay.N}) {
		t.Errorf("Payload = %+v", h.Payload)
	}
}

// TestMintNonce: a missing nonce is minted, so two handles for the same
// file and audience differ.
func TestMintNonce(t *testing.T) {
	t.Parallel()
	p := testPay
	p.N = ""
	a, _ := Mint(testKey, p, testAud)
	b, _ := Mint(testKey, p, testAud)
	if a == b {
		t.Error("two mints gave the same token")
	}
	if _, err := Mint(testKey[:31], p, testAud); err == nil {
		t.Error("Mint(31-byte key) succeeded")
	}
}

func seg(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

var goodMAC = seg(strings.Repeat("m", 32))

// malformed are tokens PFILE-5's shape check refuses.
var malformed = map[string]string{
	"empty":           "",
	"one segment":     "mh1",
	"two segments":    "mh1." + seg(`{}`),
	"four segments":   "mh1." + seg(`{}`) + "." + goodMAC + ".x",
	"other version":   "mh2." + seg(`{"v":1,"iss":"s","p":"a","exp":1,"n":"00000000000000000000000000000000"}`) + "." + goodMAC,
	"padded":          "mh1." + base64.URLEncoding.EncodeToString([]byte(`{"v":1}`)) + "." + goodMAC,
	"std alphabet":    "mh1.+/+/." + goodMAC,
	"short mac":       "mh1." + seg(`{"v":1,"iss":"s","p":"a","exp":1,"n":"00000000000000000000000000000000"}`) + "." + seg("short"),
	"not json":        "mh1." + seg("not json") + "." + goodMAC,
	"v 2":             "mh1." + seg(`{"v":2,"iss":"s","p":"a","exp":1,"n":"00000000000000000000000000000000"}`) + "." + goodMAC,
	"v 1.0":           "mh1." + seg(`{"v":1.0,"iss":"s","p":"a","exp":1,"n":"00000000000000000000000000000000"}`) + "." + goodMAC,
	"v string":        "mh1." + seg(`{"v":"1","iss":"s","p":"a","exp":1,"n":"00000000000000000000000000000000"}`) + "." + goodMAC,
	"no exp":          "mh1." + seg(`{"v":1,"iss":"s","p":"a","n":"00000000000000000000000000000000"}`) + "." + goodMAC,
	"exp float":       "mh1." + seg(`{"v":1,"iss":"s","p":"a","exp":1.5,"n":"00000000000000000000000000000000"}`) + "." + goodMAC,
	"empty path":      "mh1." + seg(`{"v":1,"iss":"s","p":"","exp":1,"n":"00000000000000000000000000000000"}`) + "." + goodMAC,
	"null path":       "mh1." + seg(`{"v":1,"iss":"s","p":null,"exp":1,"n":"00000000000000000000000000000000"}`) + "." + goodMAC,
	"short nonce":     "mh1." + seg(`{"v":1,"iss":"s","p":"a","exp":1,"n":"00"}`) + "." + goodMAC,
	"upper nonce":     "mh1." + seg(`{"v":1,"iss":"s","p":"a","exp":1,"n":"0000000000000000000000000000000A"}`) + "." + goodMAC,
	"unknown key":     "mh1." + seg(`{"v":1,"iss":"s","p":"a","exp":1,"n":"00000000000000000000000000000000","x":1}`) + "." + goodMAC,
	"trailing data":   "mh1." + seg(`{"v":1,"iss":"s","p":"a","exp":1,"n":"00000000000000000000000000000000"} {}`) + "." + goodMAC,
	"too long":        "mh1." + strings.Repeat("A", MaxToken) + "." + goodMAC,
	"percent-encoded": "mh1%2E" + seg(`{}`) + "." + goodMAC,
}

// TestParseMalformed: every malformed token is the one malformed_handle
// refusal (400).
func TestParseMalformed(t *testing.T) {
	t.Parallel()
	for name, tok := range malformed {
		h, err := Parse(tok)
		var r *Refusal
		if !errors.As(err, &r) || r.Code != CodeMalformedHandle || r.Status != 400 {
			t.Errorf("%s: Parse(%q) = %+v, %v; want malformed_handle", name, tok, h, err)
		}
	}
	ok := "mh1." + seg(`{"v":1,"iss":"s","p":"a","exp":1,"n":"00000000000000000000000000000000"}`) + "." + goodMAC
	if _, err := Parse(ok); err != nil {
		t.Errorf("Parse(well-formed) error = %v", err)
	}
}

// TestID is PFILE-3's handle_id: 16 hex of SHA-256(token).
func TestID(t *testing.T) {
	t.Parallel()
	if got, want := ID("mh1.a.b"), "595d7a2c8b40a835"; got != want {
		// sha256("mh1.a.b") = 595d7a2c8b40a835…
		t.Errorf("ID = %s, want %s", got, want)
	}
	if got := Audience("Reporter", "LOCALHOST:41234"); got != "reporter@localhost:41234" {
		t.Errorf("Audience = %s", got)
	}
}

// TestRedact: every token in a text becomes <handle:<handle_id>>; text
// without one is untouched (PFILE-6).
func TestRedact(t *testing.T) {
	t.Parallel()
	tok, _ := Mint(testKey, testPay, testAud)
	in := `{"handle":"` + tok + `","again":"x ` + tok + ` y"} mh1.tar.gz`
	want := `{"handle":"<handle:` + ID(tok) + `>","again":"x <handle:` + ID(tok) + `> y"} mh1.tar.gz`
	if got := Redact(in); got != want {
		t.Errorf("Redact = %s, want %s", got, want)
	}
	if got := string(RedactBytes([]byte(in))); got != want {
		t.Errorf("RedactBytes = %s, want %s", got, want)
	}
	plain := []byte("nothing here")
	if got := RedactBytes(plain); &got[0] != &plain[0] {
		t.Error("RedactBytes copied a text without a token")
	}
}

// FuzzParse: Parse never panics; a token it accepts re-reads the same, has
// v 1, and never verifies under a key that did not mint it.
func FuzzParse(f *testing.F) {
	tok, _ := Mint(testKey, testPay, testAud)
	f.Add(tok, testAud)
	for _, m := range malformed {
		f.Add(m, testAud)
	}
	f.Fuzz(func(t *testing.T, token, audience string) {
		h, err := Parse(token)
		if err != nil {
			var r *Refusal
			if !errors.As(err, &r) || r.Code != CodeMalformedHandle {
				t.Fatalf("Parse error = %v, want malformed_handle", err)
			}
			return
		}
		if h.Payload.V != 1 || h.Token != token {
			t.Fatalf("Parse = %+v", h)
		}
		if h.Verify(bytes.Repeat([]byte{9}, KeySize), audience) {
			t.Fatal("verified under a key that minted nothing")
		}
		_ = Redact(token)
	})
}
