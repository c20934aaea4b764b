package agentcard

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// RFC 8785 §3.2.4's sample: numbers in ECMAScript form, strings escaped as
// JSON.stringify does, keys sorted.
func TestJCSVector_RFC8785(t *testing.T) {
	in := `{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
 "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
 "literals": [null, true, false]}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	dec := json.NewDecoder(strings.NewReader(in))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeJCS(&buf, v); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Errorf("JCS =\n%s\nwant\n%s", buf.String(), want)
	}
	// RFC 8785 Appendix B's number forms.
	for f, want := range map[float64]string{5e-324: "5e-324", 1e21: "1e+21", 1e20: "100000000000000000000",
		-0.0000033333333333333333: "-0.0000033333333333333333", 0.000001: "0.000001", 1e-7: "1e-7", 9007199254740992: "9007199254740992"} {
		if got := es6Number(f); got != want {
			t.Errorf("es6Number(%v) = %s, want %s", f, got, want)
		}
	}
}

// A2A §8.4.1's example: empty values are left out of the payload.
func TestCanonicalDropsEmpty(t *testing.T) {
	got, err := Canonical([]byte(`{"name":"Example Agent","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"securitySchemes":{},"description":"d","signatures":[{"protected":"x","signature":"y"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"capabilities":{"pushNotifications":false,"streaming":false},"description":"d","name":"Example Agent"}`; string(got) != want {
		t.Errorf("Canonical = %s, want %s", got, want)
	}
	// AgentExtension.required is a proto3 bool without presence: false is
	// its default and is left out; params is a Struct, whose false stays.
	got, err = Canonical([]byte(`{"capabilities":{"extensions":[{"uri":"u","required":false,"params":{"required":false}},{"uri":"v","required":true}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"capabilities":{"extensions":[{"params":{"required":false},"uri":"u"},{"required":true,"uri":"v"}]}}`; string(got) != want {
		t.Errorf("Canonical = %s, want %s", got, want)
	}
}

// A signed card verifies with its key and keeps every other byte; another
// key, an edited card or an unsigned one do not verify.
func TestSignVerify(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(nil)
	other, _, _ := ed25519.GenerateKey(nil)
	cards, err := Build(config(AcceptQueue, false))
	if err != nil {
		t.Fatal(err)
	}
	kid := KeyID("murmur-operator", pub)
	signed, err := Sign(cards.Public, key, kid)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(signed, cards.Public[:len(cards.Public)-1]) {
		t.Errorf("the signed card changed the card's bytes:\n%s\n%s", cards.Public, signed)
	}
	v, err := Verify(signed, pub)
	if err != nil || v.KeyID != kid || v.Algorithm != "EdDSA" {
		t.Fatalf("Verify = %+v, %v; want kid %s EdDSA", v, err, kid)
	}
	var c struct{ Signatures []Signature }
	_ = json.Unmarshal(signed, &c)
	hdr, _ := base64.RawURLEncoding.DecodeString(c.Signatures[0].Protected)
	if !strings.Contains(string(hdr), `"typ":"JOSE"`) || !strings.Contains(string(hdr), `"kid":"`+kid+`"`) {
		t.Errorf("protected header %s, want alg, typ JOSE and kid", hdr)
	}
	if _, err := Verify(signed, other); !errors.Is(err, ErrNotVerified) {
		t.Errorf("Verify with another key = %v, want ErrNotVerified", err)
	}
	edited := bytes.Replace(signed, []byte(`"version":"1.2.0"`), []byte(`"version":"1.2.1"`), 1)
	if _, err := Verify(edited, pub); !errors.Is(err, ErrNotVerified) {
		t.Errorf("Verify of an edited card = %v, want ErrNotVerified", err)
	}
	if _, err := Verify(cards.Public, pub); !errors.Is(err, ErrUnsigned) {
		t.Errorf("Verify of an unsigned card = %v, want ErrUnsigned", err)
	}
	if _, err := Sign(signed, key, kid); err == nil {
		t.Error("signing a signed card succeeded")
	}
}
