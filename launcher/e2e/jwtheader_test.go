package e2e

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/murmur-go/mur/a2a"
)

// TestUnknownJWTHeaderRefusedAtRealDoor: a member token signed with the
// formation's own key, its claims exactly the edge lead → worker's, is
// refused 401 invalid_token by a real member door when its header carries a
// parameter this code does not implement — crit above all (RFC 7515
// §4.1.11), but also kid, jku, cty, b64 or another typ (door.md GO-5
// step 1). The same claims under the plain header get in.
func TestUnknownJWTHeaderRefusedAtRealDoor(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sha := installPeer(t, w, "e2e-worker")
	frm := a2a.NewID(a2a.PrefixFormation)
	pub, priv, _ := ed25519.GenerateKey(nil)
	worker := startHandMember(t, w, frm, "worker", "e2e-worker", sha, pub)
	sign := func(header map[string]any) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{"iss": frm, "sub": "lead", "aud": frm + "/worker",
			"scope": a2a.MemberTokenScope, "iat": time.Now().Unix(), "jti": "forged"})
		for k, v := range header {
			tok.Header[k] = v
		}
		s, err := tok.SignedString(priv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	getTask := `{"id":"tsk_00000000000000000000000000000000"}`
	const invalid = `{"error":"invalid_token","message":"the Authorization header does not carry a token this door accepts"}`
	for name, header := range map[string]map[string]any{
		"crit naming an extension": {"crit": []string{"x-murmur-ext"}, "x-murmur-ext": true},
		"crit naming b64":          {"crit": []string{"b64"}, "b64": false},
		"crit, empty":              {"crit": []string{}},
		"kid":                      {"kid": "launcher-key"},
		"jku":                      {"jku": "http://127.0.0.1:1/keys"},
		"cty":                      {"cty": "JWT"},
		"typ other than JWT":       {"typ": "at+jwt"},
	} {
		if status, body := call(t, worker.ready.URL, sign(header), "GetTask", getTask); status != 401 || body != invalid {
			t.Errorf("header with %s = %d %s, want 401 %s", name, status, body, invalid)
		}
	}
	// The control: the same claims and key under {"alg":"EdDSA","typ":"JWT"}
	// pass the token checks (GetTask then answers for an unknown task).
	if status, body := call(t, worker.ready.URL, sign(nil), "GetTask", getTask); status != 200 {
		t.Errorf("plain header = %d %s, want 200", status, body)
	}
}
