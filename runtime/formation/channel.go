package formation

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/credential"
	"github.com/murmur-go/mur/runtime/wire"
)

// maxLine bounds one channel line: the launcher writes a few KiB at most.
const maxLine = 1 << 20

// Address is where a callee's door answers (CHAN-3), as the address line
// carries it.
type Address = wire.Address

// Launcher is the process that launched the formation, as the channel's first
// line names it (FCLI-5 formation_launcher).
type Launcher = wire.Launcher

// readLine reads one '\n'-terminated line of at most maxLine bytes. A final
// line without '\n' is returned with io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("a line is longer than %d bytes", maxLine)
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(line, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, io.EOF
		default:
			return nil, err
		}
	}
}

// firstLine reads and checks the channel's first line (CHAN-4) within wait,
// or until ctx ends. It returns the reason for E-RUN-046 on failure.
func firstLine(ctx context.Context, f *os.File, br *bufio.Reader, formationID string, wait time.Duration) (*wire.Credentials, ed25519.PublicKey, string) {
	_ = f.SetReadDeadline(time.Now().Add(wait)) // a regular file has no deadline and never blocks
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Now()); close(fired) })
	line, err := readLine(br)
	if !stop() {
		<-fired // its deadline is set before the one below clears it
	}
	_ = f.SetReadDeadline(time.Time{})
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, nil, fmt.Sprintf("no first line arrived within %s", waitText(wait))
	case errors.Is(err, io.EOF) && len(line) == 0:
		return nil, nil, "it closed before a first line arrived"
	case err != nil && !errors.Is(err, io.EOF):
		return nil, nil, fmt.Sprintf("its first line could not be read: %v", err)
	}
	c, err := wire.ParseCredentials(line)
	if err != nil {
		return nil, nil, fmt.Sprintf("its first line is not a credentials object: %v", err)
	}
	if why := credentialsFault(&c); why != "" {
		return nil, nil, "its first line is not a valid credentials object: " + why
	}
	if c.FormationID != formationID {
		return nil, nil, "its first line names another formation than MURMUR_FORMATION_ID"
	}
	key, err := decodeKey(c.VerifyKey)
	if err != nil {
		return nil, nil, "its first line is not a valid credentials object: verify_key " + err.Error()
	}
	for _, callee := range c.Callees {
		if why := verifyToken(key, &c, callee); why != "" {
			return nil, nil, why
		}
	}
	return &c, key, ""
}

// credentialsFault checks the credentials line's shape.
func credentialsFault(c *wire.Credentials) string {
	switch {
	case c.Type != wire.TypeCredentials:
		return fmt.Sprintf("its type is '%s', not '%s'", c.Type, wire.TypeCredentials)
	case !a2a.ValidID(c.FormationID, a2a.PrefixFormation):
		return "formation_id is not a formation id"
	case !memberName.MatchString(c.Member):
		return "member is not a member name"
	case c.Launcher == nil || c.Launcher.PID <= 0:
		return "launcher does not name a process"
	case len(c.Tokens) != len(c.Callees):
		return "tokens and callees do not name the same members"
	case c.Cancel != "" && c.Cancel != wire.CancelCascade:
		return fmt.Sprintf("cancel is '%s', not '%s'", c.Cancel, wire.CancelCascade)
	}
	seen := make(map[string]bool, len(c.Callees))
	for _, callee := range c.Callees {
		if !memberName.MatchString(callee) || callee == c.Member || seen[callee] {
			return fmt.Sprintf("callee '%s' is not another member's name", callee)
		}
		seen[callee] = true
		if _, ok := c.Tokens[callee]; !ok {
			return fmt.Sprintf("it carries no token for callee '%s'", callee)
		}
	}
	return ""
}

func decodeKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.URLEncoding.DecodeString(s)
	}
	if err != nil {
		return nil, errors.New("is not base64url")
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("holds %d bytes, not %d", len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// verifyToken checks that the token listed under callee was issued by this
// formation (iss) to this member (sub) for callee (aud), CHAN-4.
func verifyToken(key ed25519.PublicKey, c *wire.Credentials, callee string) string {
	claims, err := credential.Verify(key, c.FormationID, c.Tokens[callee])
	if err != nil || claims.Launcher() || claims.Subject != c.Member ||
		len(claims.Audience) != 1 || !claims.Names(c.FormationID, callee) {
		return fmt.Sprintf("its token for '%s' was not issued by formation %s to '%s' for '%s'", callee, c.FormationID, c.Member, callee)
	}
	return ""
}

func waitText(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	return d.String()
}

// AddressError is Lookup's error when a callee's address did not arrive in
// time (CHAN-5); its text is call-member's <why>.
type AddressError struct {
	Member string
	Wait   time.Duration
}

func (e *AddressError) Error() string {
	return fmt.Sprintf("%s's door address did not arrive within %s", e.Member, waitText(e.Wait))
}

// ErrNotCallee is Lookup's error for a name that is not one of this member's
// callees (CRED-7: a member knows nothing of non-callees).
var ErrNotCallee = errors.New("not a callee of this member")

// Callee is what call-member needs to reach a callee (CHAN-5): only the
// runtime holds it; models and tools never see it.
type Callee struct {
	Address
	Token credential.Token
}

// Lookup returns callee's door address and this member's token for it,
// waiting up to 10 s for the address line (CHAN-5). Errors: ErrNotCallee,
// *AddressError, or ctx's error.
func (m *Member) Lookup(ctx context.Context, callee string) (Callee, error) {
	return m.lookup(ctx, callee, m.waits.address)
}

func (m *Member) lookup(ctx context.Context, callee string, wait time.Duration) (Callee, error) {
	tok, ok := m.tokens[callee]
	if !ok {
		return Callee{}, ErrNotCallee
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		m.mu.Lock()
		a, found := m.addrs[callee]
		changed := m.changed
		m.mu.Unlock()
		if found {
			return Callee{Address: a, Token: credential.Token(tok)}, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return Callee{}, &AddressError{Member: callee, Wait: wait}
		case <-ctx.Done():
			return Callee{}, context.Cause(ctx)
		}
	}
}

// readAddresses reads the channel after its first line until EOF or Close,
// filling the address map from address lines (CHAN-3).
func (m *Member) readAddresses(br *bufio.Reader) {
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			m.takeLine(line)
		}
		if err != nil {
			return
		}
	}
}

func (m *Member) takeLine(line []byte) {
	a, err := wire.ParseAddresses(line)
	if err != nil {
		return // unknown types are ignored (§17)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range a.Callees {
		if _, isCallee := m.tokens[c.Name]; isCallee {
			m.addrs[c.Name] = c
		}
	}
	close(m.changed)
	m.changed = make(chan struct{})
}
