package formation

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/wire"
)

// The variables the launcher sets on every member (LAUNCH-3).
const (
	EnvID       = "MURMUR_FORMATION_ID"
	EnvChannel  = "MURMUR_FORMATION_CHANNEL"
	EnvLifeline = "MURMUR_FORMATION_LIFELINE"
	EnvPeers    = "MURMUR_FORMATION_PEERS" // never usable (scope cut: no WASM)
)

// The waits of CHAN-4 and CHAN-5.
const (
	FirstLineWait = 10 * time.Second // the channel's first line
	AddressWait   = 10 * time.Second // a callee's address line, per lookup
)

var memberName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

type waits struct{ firstLine, address time.Duration }

// Member is this session's place in a formation.
type Member struct {
	FormationID string
	// Name, PublicKey, Launcher and Callees come from the channel's first
	// line; a member with no channel (started by hand with only
	// MURMUR_FORMATION_ID) has none of them, and its door is in no formation.
	Name      string
	PublicKey ed25519.PublicKey
	Launcher  Launcher
	Callees   []string // roster order (TRC-1 formation_callees)
	// CardKey is the formation's Agent Card key from the channel (A2A §8.4):
	// the member's door signs its cards with it, and call-member checks each
	// callee's card against its public half. Nil without a channel.
	CardKey ed25519.PrivateKey
	// Cascade is the roster's `cancel: cascade`: when a task
	// of this member ends without the answers of its member calls
	// delivered, call-member cancels the member tasks it left live.
	Cascade bool
	// Lifeline is true when the member holds a lifeline (FCLI-5
	// formation_lifeline); Ended is then closed at its EOF.
	Lifeline bool
	// Warnings are W-RUN-007 when the member holds no lifeline (LIFE-7).
	Warnings []*diag.Diagnostic

	waits   waits
	tokens  map[string]string // callee → member token
	channel *os.File
	life    *os.File
	ended   chan struct{} // closed at lifeline EOF
	wg      sync.WaitGroup

	mu       sync.Mutex
	addrs    map[string]Address
	changed  chan struct{} // closed and replaced at every address line
	endedAt  time.Time
	orderly  bool // the lifeline carried wire.OrderlyEnd before EOF
	closed   bool
	closeErr error
}

// Launched reports whether a launcher handed this member its credentials
// (TRC-1: only then does session_start carry formation_member and
// formation_callees).
func (m *Member) Launched() bool { return m.Name != "" }

// Join reads this process's formation environment through getenv (MAN-4
// step 0). It returns nil, nil when the process is in no formation, a
// *diag.Diagnostic (E-RUN-044, E-RUN-046) when the environment cannot be
// used — before anything is written — or the Member. Joining a lifeline also
// catches SIGPIPE, so a closed stream never kills a member (LIFE-6).
func Join(getenv func(string) string) (*Member, error) {
	return JoinContext(context.Background(), getenv)
}

// JoinContext is Join that stops waiting for the channel's first line once
// ctx ends (a signal while `mur run` prepares), returning context.Cause(ctx).
func JoinContext(ctx context.Context, getenv func(string) string) (*Member, error) {
	return join(ctx, getenv, waits{firstLine: FirstLineWait, address: AddressWait})
}

func join(ctx context.Context, getenv func(string) string, w waits) (*Member, error) {
	if getenv(EnvPeers) != "" {
		return nil, diag.RunPeersSet()
	}
	id := getenv(EnvID)
	chVar, lifeVar := strings.TrimSpace(getenv(EnvChannel)), strings.TrimSpace(getenv(EnvLifeline))
	if id == "" {
		switch {
		case chVar != "":
			return nil, diag.RunChannelBad(EnvID + " is not set")
		case lifeVar != "":
			return nil, diag.RunLifelineBad(EnvID + " is not set")
		}
		return nil, nil
	}
	if why := diag.FormationIDFault(id); why != "" {
		return nil, diag.RunFormationIDBad(why)
	}
	m := &Member{FormationID: id, waits: w, tokens: map[string]string{},
		addrs: map[string]Address{}, changed: make(chan struct{})}
	chFD, lifeFD := -1, -1
	if chVar != "" {
		fd, why := descriptor(chVar)
		if why == "" {
			why = checkFD(fd, false)
		}
		if why != "" {
			return nil, diag.RunChannelBad(why)
		}
		chFD = fd
	}
	if lifeVar != "" {
		fd, why := descriptor(lifeVar)
		if why == "" {
			why = checkFD(fd, true)
		}
		if why != "" {
			return nil, diag.RunLifelineBad(why)
		}
		lifeFD = fd
	}
	if chFD >= 0 {
		if err := m.readCredentials(ctx, chFD); err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, err
		}
	}
	if lifeFD < 0 {
		m.Warnings = append(m.Warnings, diag.RunNoLifeline(id))
	} else {
		// Notify, not Ignore: a write to a closed stdout or stderr then fails
		// instead of killing the member, while the commands its shell runs
		// still start with SIGPIPE at its default (an ignored signal would be
		// inherited across exec). Never stopped: the session's last lines are
		// written after Close.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		m.watchLifeline(lifeFD)
	}
	return m, nil
}

// openFD wraps fd as an *os.File on Go's poller, so reads take deadlines and
// Close unblocks them.
func openFD(fd int, name string) *os.File {
	_ = syscall.SetNonblock(fd, true)
	syscall.CloseOnExec(fd) // the session's own subprocesses never inherit it
	return os.NewFile(uintptr(fd), name)
}

func (m *Member) readCredentials(ctx context.Context, fd int) error {
	f := openFD(fd, "formation-channel")
	br := bufio.NewReaderSize(f, 64<<10)
	c, key, why := firstLine(ctx, f, br, m.FormationID, m.waits.firstLine)
	if why != "" {
		f.Close()
		return diag.RunChannelBad(why)
	}
	m.channel = f
	m.Name, m.PublicKey, m.Launcher, m.Callees = c.Member, key, *c.Launcher, c.Callees
	m.tokens = c.Tokens
	m.Cascade = c.Cancel == wire.CancelCascade
	if seed, err := base64.RawURLEncoding.DecodeString(c.CardKey); err == nil && len(seed) == ed25519.SeedSize {
		m.CardKey = ed25519.NewKeyFromSeed(seed)
	}
	m.wg.Go(func() { m.readAddresses(br) })
	return nil
}

// Close stops the channel and lifeline readers and waits for them. It does
// not close Ended. Safe to call more than once.
func (m *Member) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return m.closeErr
	}
	m.closed = true
	m.mu.Unlock()
	var errs []error
	if m.channel != nil {
		errs = append(errs, m.channel.Close())
	}
	if m.life != nil {
		errs = append(errs, m.life.Close())
	}
	m.wg.Wait()
	m.closeErr = errors.Join(errs...)
	return m.closeErr
}
