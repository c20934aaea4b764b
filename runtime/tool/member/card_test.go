package member

import (
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// cardFixture is newFixture with the formation's card key set.
func cardFixture(t *testing.T, door *fakeDoor, key ed25519.PublicKey) *fixture {
	t.Helper()
	impls, err := Tools(Config{
		Callees: []string{"worker"}, Directory: addresses(), Allow: allowLocalhost(t),
		Timing:     Timing{Jitter: func() time.Duration { return 0 }},
		HTTPClient: &http.Client{Transport: door}, CardKey: key, Formation: "frm_test",
	})
	if err != nil {
		t.Fatal(err)
	}
	tw, err := trace.Open(filepath.Join(t.TempDir(), "trace.jsonl"), "ses_test", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tw.Close() })
	ts := tool.NewTaskState(tool.TaskInfo{ID: "tsk_test", Origin: "peer", Trust: "trusted"}, tw)
	return &fixture{door: door, call: impls[tool.NameCallMember], ts: ts, tw: tw}
}

// signedCard is a callee's card signed with key.
func signedCard(t *testing.T, key ed25519.PrivateKey) []byte {
	t.Helper()
	b, err := agentcard.Sign([]byte(`{"name":"worker","version":"1","supportedInterfaces":[{"url":"`+doorURL+`","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`),
		key, agentcard.FormationKeyPrefix+"frm_test")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A2A §8.4: before its first call to a callee, a member checks the callee's
// card is signed with the formation's card key. A card signed with it lets
// the call through, and is fetched once; a card re-signed with another key,
// an unsigned one or none at all refuse the call with nothing sent.
func TestCallChecksCalleeCard(t *testing.T) {
	formationPub, formationKey, _ := ed25519.GenerateKey(nil)
	_, otherKey, _ := ed25519.GenerateKey(nil)
	synctest.Test(t, func(t *testing.T) {
		door := &fakeDoor{card: signedCard(t, formationKey),
			send: func(int) reply { return taken("tsk_w1") }, get: func(int) reply { return reply{task: completed("tsk_w1", "done")} }}
		f := cardFixture(t, door, formationPub)
		if res := f.callMember(t, "worker", "one"); res.Status != tool.Passed {
			t.Fatalf("a call to a callee with a formation-signed card = %+v, want started", res)
		}
		f.set(t).Abandon()
		if n := len(door.requests(a2a.MethodSendMessage)); n != 1 {
			t.Errorf("%d SendMessage requests, want 1", n)
		}
	})
	for name, card := range map[string][]byte{
		"re-signed with another key": signedCard(t, otherKey),
		"unsigned":                   []byte(`{"name":"worker","version":"1"}`),
		"no card":                    nil,
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				door := &fakeDoor{card: card, send: func(int) reply { return taken("tsk_w1") }}
				f := cardFixture(t, door, formationPub)
				res := f.callMember(t, "worker", "one")
				var data map[string]string
				_ = json.Unmarshal([]byte(res.Data), &data)
				if data["status"] != statusFailed || !strings.Contains(data["output"], "'worker' was not called: the Agent Card at "+doorURL+" does not verify against formation frm_test's card key") {
					t.Errorf("result = %+v, want the call refused for its card", res)
				}
				if n := len(door.requests(a2a.MethodSendMessage)); n != 0 {
					t.Errorf("%d SendMessage requests, want none", n)
				}
			})
		})
	}
}
