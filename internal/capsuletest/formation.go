package capsuletest

import (
	"crypto/ed25519"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/credential"
	"github.com/murmur-go/mur/runtime/formation"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/wire"
)

// Formation is a formation without a launcher: the test plays the launcher's
// part of the channel (formations.md §17) and holds no lifeline, so its
// members warn W-RUN-007 and end as sessions do.
type Formation struct {
	ID   string
	priv ed25519.PrivateKey
	pub  ed25519.PublicKey
}

// NewFormation makes a formation id and its signing key.
func NewFormation(t testing.TB) *Formation {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Formation{ID: a2a.NewID(a2a.PrefixFormation), priv: priv, pub: pub}
}

// Callee is a member a capsule may call, already served.
type Callee struct {
	Name string
	*Capsule
}

// Member returns the environment that makes a capsule the formation's
// member name, calling callees in their order: its channel, a file that
// holds the credentials line with a member token per callee and, when there
// are callees, the address line naming their doors. The channel's descriptor
// belongs to the member from then on.
func (f *Formation) Member(t testing.TB, name string, callees ...Callee) map[string]string {
	t.Helper()
	start, err := murhome.StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	c := wire.Credentials{FormationID: f.ID, Member: name, VerifyKey: base64.RawURLEncoding.EncodeToString(f.pub),
		Launcher: &wire.Launcher{PID: os.Getpid(), ProcessStart: start}, Callees: []string{}, Tokens: map[string]string{}}
	var addrs wire.Addresses
	for _, ce := range callees {
		tok, err := credential.Mint(f.priv, credential.MemberClaims(f.ID, name, ce.Name))
		if err != nil {
			t.Fatal(err)
		}
		c.Callees = append(c.Callees, ce.Name)
		c.Tokens[ce.Name] = string(tok)
		addrs.Callees = append(addrs.Callees, wire.Address{Name: ce.Name, URL: ce.URL, SessionID: ce.SessionID})
	}
	channel := c.Line()
	if len(callees) > 0 {
		channel = append(channel, addrs.Line()...)
	}
	path := filepath.Join(t.TempDir(), name+".channel")
	if err := os.WriteFile(path, channel, 0o600); err != nil {
		t.Fatal(err)
	}
	// A bare descriptor, which no *os.File of the test's owns or closes,
	// without FD_CLOEXEC as one handed over across exec is (Join refuses
	// any other); the member sets FD_CLOEXEC once it has taken it.
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{formation.EnvID: f.ID, formation.EnvChannel: strconv.Itoa(fd)}
}
