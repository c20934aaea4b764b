package door

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/internal/testmur"
)

// jsClient is testmur.JSClient with testdata/jsclient's files.
func jsClient(t *testing.T) string {
	t.Helper()
	files := map[string][]byte{}
	for _, f := range []string{"client.mjs", "signature.mjs", "package.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "jsclient", f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	return testmur.JSClient(t, files)
}

// TestJSClientBindings is the official JavaScript SDK's client against a real
// door, told to prefer each binding in turn: send, get (with the agent's
// message in the history), cancel, stream and task-not-found answer alike
// over JSON-RPC and HTTP+JSON (A2A §9, §11).
func TestJSClientBindings(t *testing.T) {
	dir := jsClient(t)
	td := startDoor(t, opts{})
	for _, binding := range []string{"JSONRPC", "HTTP+JSON"} {
		t.Run(binding, func(t *testing.T) {
			cmd := exec.Command("node", "client.mjs", td.url, binding)
			cmd.Dir = dir
			stdout, stderr, code := testmur.Exec(t, cmd)
			t.Logf("client.mjs %s:\n%s", binding, stdout)
			if code != 0 {
				t.Errorf("client.mjs %s exited %d:\n%s\n%s", binding, code, stdout, stderr)
			}
			for _, step := range []string{"transport", "send", "get", "cancel", "stream", "task-not-found"} {
				if !strings.Contains(stdout, "ok "+step+" ") {
					t.Errorf("step %s did not pass", step)
				}
			}
		})
	}
}

// TestJSSignatureInterop is A2A §8.4 against another implementation, the
// official JavaScript SDK (@a2a-js/sdk 1.3.0's canonicalizeAgentCard,
// verifyAgentCardSignature and generateAgentCardSignature, over the jose
// library): the SDK's canonical form of a signed door's card is
// agentcard.Canonical's byte for byte, the SDK verifies the door's
// signature with the door's public key, and agentcard.Verify — what mur card
// verify runs — accepts a card the SDK signed, and refuses it with the
// door's key.
func TestJSSignatureInterop(t *testing.T) {
	dir := jsClient(t)
	pub, key, _ := ed25519.GenerateKey(nil)
	td := startDoorWith(t, opts{}, func(c *Config) {
		c.CardKey, c.CardKeyID = key, agentcard.KeyID(agentcard.OperatorKeyPrefix, pub)
	})
	jwk := `{"kty":"OKP","crv":"Ed25519","x":"` + base64.RawURLEncoding.EncodeToString(pub) + `"}`
	cmd := exec.Command("node", "signature.mjs", td.url, jwk)
	cmd.Dir = dir
	stdout, stderr, code := testmur.Exec(t, cmd)
	if code != 0 {
		t.Fatalf("signature.mjs exited %d:\n%s\n%s", code, stdout, stderr)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		k, v, _ := strings.Cut(l, " ")
		lines[k] = v
	}
	card := td.do(http.MethodGet, "/.well-known/agent-card.json", "", "").body
	ours, err := agentcard.Canonical([]byte(card))
	if err != nil {
		t.Fatal(err)
	}
	if lines["canonical"] != string(ours) {
		t.Errorf("the SDK's canonical card differs from ours:\nSDK  %s\nours %s", lines["canonical"], ours)
	}
	if want := agentcard.KeyID(agentcard.OperatorKeyPrefix, pub); lines["verified"] != want {
		t.Errorf("the SDK verified kid %q, want %q (stdout %s)", lines["verified"], want, stdout)
	}
	var sdkKey struct{ X string }
	if err := json.Unmarshal([]byte(lines["key"]), &sdkKey); err != nil {
		t.Fatalf("key line %q: %v", lines["key"], err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(sdkKey.X)
	if err != nil || len(raw) != ed25519.PublicKeySize {
		t.Fatalf("the SDK's key %q: %v", sdkKey.X, err)
	}
	v, err := agentcard.Verify([]byte(lines["signed"]), ed25519.PublicKey(raw))
	if err != nil || v.KeyID != "a2a-js" || v.Algorithm != "EdDSA" {
		t.Errorf("Verify(the SDK's card) = %+v, %v; want kid a2a-js EdDSA", v, err)
	}
	if _, err := agentcard.Verify([]byte(lines["signed"]), pub); !errors.Is(err, agentcard.ErrNotVerified) {
		t.Errorf("Verify(the SDK's card, the door's key) = %v, want ErrNotVerified", err)
	}
}
