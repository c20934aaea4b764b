package conformance_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net"
	"net/http"
	"os"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/internal/doortest"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/credential"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// TestMain points MURMUR_HOME at a temporary directory: nothing here may
// touch the user's.
func TestMain(m *testing.M) { os.Exit(testmur.WithHome(m)) }

// slowText is the task text the test executor holds until the task is canceled.
const slowText = "hold until canceled"

// askText starts a task text the executor answers by asking for input: the
// task waits INPUT_REQUIRED and completes with the reply (input.md INP-4).
const askText = "ask:"

// doorOpts shapes an in-process door.
type doorOpts struct {
	acceptance tasktable.Mode
	peerTasks  bool
	auth       bool
	// formation makes the authenticated door a formation member ("worker")
	// and mints a member token of "lead" for it.
	formation bool
	// wrap, when set, wraps the door's handler: fakes that break one rule.
	wrap func(http.Handler) http.Handler
	// wrapTokens is wrap for fakes that need the door's tokens.
	wrapTokens func(d *testDoor, next http.Handler) http.Handler
}

// testDoor is a real door on a loopback listener, with a task registry and an
// executor goroutine that pulls its tasks.
type testDoor struct {
	url    string
	token  string // the operator token on an authenticated door
	scoped string // credential "reader" (GetTask, ListTasks) on an authenticated door
	member string // lead's member token on a formation door
}

// startDoor serves a door until the test ends. The executor holds tasks
// whose text is slowText until they are canceled, parks those starting with
// askText INPUT_REQUIRED until a reply completes them, and completes every
// other task at once with the answer "ok".
func startDoor(t *testing.T, o doorOpts) *testDoor {
	t.Helper()
	if o.acceptance == "" {
		o.acceptance = tasktable.ModeQueue
	}
	reg, err := tasktable.New(tasktable.Config{Acceptance: o.acceptance, QueueDepth: 64})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	td := &testDoor{url: "http://" + ln.Addr().String()}
	_, cardKey, _ := ed25519.GenerateKey(nil) // A2A §8.4: card.signature checks the signature's form
	cfg := door.Config{
		Registry:   reg,
		Card:       agentcard.Config{Name: "conformer", Version: "0.1.0", URL: td.url, Shell: true},
		Acceptance: o.acceptance,
		PeerTasks:  o.peerTasks,
		SessionID:  a2a.NewID(a2a.PrefixSession),
		CardKey:    cardKey,
		CardKeyID:  agentcard.KeyID(agentcard.OperatorKeyPrefix, cardKey.Public().(ed25519.PublicKey)),
	}
	if o.auth || o.formation {
		toks, err := door.MintTokens([]door.Credential{{Name: "reader", Scopes: []string{a2a.MethodGetTask, a2a.MethodListTasks}}})
		if err != nil {
			t.Fatal(err)
		}
		td.token, td.scoped = string(toks[0].Value), string(toks[1].Value)
		cfg.Auth = &door.Auth{Realm: "conformer", Tokens: toks}
	}
	if o.formation {
		pub, priv, err := ed25519.GenerateKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		frm := a2a.NewID(a2a.PrefixFormation)
		cfg.Auth.Formation = &door.Formation{ID: frm, Member: "worker", PublicKey: pub}
		tok, err := credential.Mint(priv, credential.MemberClaims(frm, "lead", "worker"))
		if err != nil {
			t.Fatal(err)
		}
		td.member = string(tok)
	}
	d, err := door.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := d.Handler()
	if o.wrap != nil {
		h = o.wrap(h)
	}
	if o.wrapTokens != nil {
		h = o.wrapTokens(td, h)
	}
	srv := &http.Server{Handler: h}
	served := make(chan error, 1) // Serve's one result
	go func() { served <- srv.Serve(ln) }()

	ex := doortest.Start(reg, doortest.Script{Hold: slowText, Answer: doortest.Answers("ok"),
		Question: func(string) string { return "what should I answer?" }}.Execute)
	t.Cleanup(func() {
		ex.Stop()
		if err := d.Shutdown(context.Background()); err != nil {
			t.Errorf("door Shutdown() error = %v", err)
		}
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("server Shutdown() error = %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve() error = %v, want ErrServerClosed", err)
		}
	})
	return td
}
