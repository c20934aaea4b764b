package main

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/murhome"
)

// cardVerify runs `mur card verify` under e's MURMUR_HOME.
func (e *runEnv) cardVerify(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(murBin, append([]string{"card", "verify"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "MURMUR_HOME=" + e.home, "HOME=" + e.home}
	return testmur.Exec(t, cmd)
}

// A standalone door signs its card with the operator key it made in
// $MURMUR_HOME (0600); mur card verify accepts it with that key, and refuses
// it with another key, and refuses the same card re-signed by another key
// (A2A §8.4).
func TestCardVerify_Signed(t *testing.T) {
	t.Parallel()
	e := doorEnv(t)
	url := "http://" + e.startDoor(t)
	fi, err := os.Stat(murhome.CardKeyPath(e.home))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("card key = %v, %v; want a 0600 file", fi, err)
	}
	out, errOut, code := e.cardVerify(t, url)
	if code != 0 || !strings.HasPrefix(out, "verified: murmur-operator:") || !strings.Contains(out, "(EdDSA), card door-limits at "+url) {
		t.Fatalf("mur card verify = %d %q %q, want verified with the operator key", code, out, errOut)
	}
	out, _, code = e.cardVerify(t, url, "--json")
	var doc cardJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || !doc.Signed || !doc.Verified || doc.Alg != "EdDSA" || doc.Name != "door-limits" {
		t.Errorf("--json = %d %s (%v)", code, out, err)
	}

	// Another key refuses it.
	otherPub, otherKey, _ := ed25519.GenerateKey(nil)
	der, _ := x509.MarshalPKIXPublicKey(otherPub)
	keyFile := filepath.Join(t.TempDir(), "other.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := e.cardVerify(t, url, "--key", keyFile); code != 1 || !strings.Contains(errOut, "no signature on the card verifies") {
		t.Errorf("with another key = %d %q %q, want exit 1", code, out, errOut)
	}

	// The same card re-signed with the other key does not verify with the
	// operator key, but does with the other one.
	resp, err := http.Get(url + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	card, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var m map[string]json.RawMessage
	_ = json.Unmarshal(card, &m)
	delete(m, "signatures")
	unsigned, _ := json.Marshal(m)
	resigned, err := agentcard.Sign(unsigned, otherKey, agentcard.KeyID("impostor", otherPub))
	if err != nil {
		t.Fatal(err)
	}
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(resigned) }))
	t.Cleanup(fake.Close)
	if out, errOut, code := e.cardVerify(t, fake.URL); code != 1 || !strings.Contains(errOut, "no signature on the card verifies") {
		t.Errorf("a re-signed card with the operator key = %d %q %q, want exit 1", code, out, errOut)
	}
	if out, _, code := e.cardVerify(t, fake.URL, "--key", keyFile); code != 0 || !strings.HasPrefix(out, "verified: impostor:") {
		t.Errorf("a re-signed card with its own key = %d %q, want verified", code, out)
	}
	unsignedSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(unsigned) }))
	t.Cleanup(unsignedSrv.Close)
	if _, errOut, code := e.cardVerify(t, unsignedSrv.URL); code != 1 || !strings.Contains(errOut, "the card has no signatures") {
		t.Errorf("an unsigned card = %d %q, want exit 1", code, errOut)
	}
}

// mur card verify accepts a card another implementation signed: the
// a2a-python cross-SDK vectors (agentcard/testdata/a2a-card-sign-v01.json),
// ES256 under a published test key given as a JWK, signed by a2a-sdk,
// @a2a-js/sdk and a2a-go; the card edited after signing is refused.
func TestCardVerify_OtherImplementations(t *testing.T) {
	t.Parallel()
	e := doorEnv(t)
	raw, err := os.ReadFile("../../agentcard/testdata/a2a-card-sign-v01.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		TestKey struct {
			JWK json.RawMessage `json:"jwk"`
		} `json:"test_key"`
		Vectors []struct {
			ID          string          `json:"id"`
			Disposition string          `json:"disposition"`
			Signer      string          `json:"signer"`
			Card        json.RawMessage `json:"served_card"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &corpus); err != nil || len(corpus.Vectors) != 5 {
		t.Fatalf("corpus: %v, %d vectors", err, len(corpus.Vectors))
	}
	keyFile := filepath.Join(t.TempDir(), "testkey.jwk")
	if err := os.WriteFile(keyFile, corpus.TestKey.JWK, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range corpus.Vectors {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(v.Card) }))
		out, errOut, code := e.cardVerify(t, srv.URL, "--key", keyFile)
		srv.Close()
		switch v.Disposition {
		case "MUST-ACCEPT":
			if code != 0 || !strings.HasPrefix(out, "verified: hs-interop-test-v1 (ES256), card Interop Probe at ") {
				t.Errorf("%s (%s) = %d %q %q, want verified", v.ID, v.Signer, code, out, errOut)
			}
		default:
			if code != 1 || !strings.Contains(errOut, "no signature on the card verifies") {
				t.Errorf("%s (%s) = %d %q %q, want exit 1", v.ID, v.Signer, code, out, errOut)
			}
		}
	}
}
