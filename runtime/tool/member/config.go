package member

import (
	"context"
	"crypto/ed25519"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/murmur-go/mur/runtime/formation"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/tool"
)

// DefaultDeadline is lifecycle.delegation_deadline_secs's default (CALL-5).
const DefaultDeadline = 600 * time.Second

// Directory resolves a callee's name to its door and this member's token for
// it; *formation.Member satisfies it (CHAN-5: only the runtime holds them).
type Directory interface {
	// Lookup waits for the callee's address (CHAN-5); its errors are
	// formation.ErrNotCallee, *formation.AddressError or ctx's.
	Lookup(ctx context.Context, callee string) (formation.Callee, error)
}

var _ Directory = (*formation.Member)(nil)

// Timing holds the waits of CALL-5, CALL-9 and CALL-10. Tests shorten them
// or run under testing/synctest; DefaultTiming is the contract.
type Timing struct {
	Poll       time.Duration        // GetTask every Poll (CALL-10: 500 ms)
	FirstRetry time.Duration        // the 2nd offer after the 1st refusal (CALL-9: 1 s)
	MaxRetry   time.Duration        // later waits double up to it (8 s)
	Jitter     func() time.Duration // added to each wait (0–250 ms)
	Request    time.Duration        // each offer, read and cancel (CALL-5: 5 s)
	InFlight   time.Duration        // an ending task waits this long for an offer's answer (6 s)
}

// DefaultTiming returns the spec's waits, with 0–250 ms of random jitter.
func DefaultTiming() Timing {
	return Timing{
		Poll: 500 * time.Millisecond, FirstRetry: time.Second, MaxRetry: 8 * time.Second,
		Jitter:  func() time.Duration { return rand.N(251 * time.Millisecond) },
		Request: 5 * time.Second, InFlight: 6 * time.Second,
	}
}

// withDefaults fills each zero field from DefaultTiming.
func (t Timing) withDefaults() Timing {
	d := DefaultTiming()
	for _, f := range []struct{ v, def *time.Duration }{
		{&t.Poll, &d.Poll}, {&t.FirstRetry, &d.FirstRetry}, {&t.MaxRetry, &d.MaxRetry},
		{&t.Request, &d.Request}, {&t.InFlight, &d.InFlight},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	if t.Jitter == nil {
		t.Jitter = d.Jitter
	}
	return t
}

// Config builds the two tools of one formation member (tools.md §10, §11).
type Config struct {
	// Callees are the members this one may call, in roster order (CALL-1);
	// required, non-empty.
	Callees []string
	// Directory finds each callee's door and token; required.
	Directory Directory
	// Allow is this capsule's capabilities.network.allow (CALL-6, CRED-2).
	Allow manifest.AllowList
	// Deadline bounds each call, offers and waiting together (CALL-5):
	// lifecycle.delegation_deadline_secs after MURMUR_DELEGATION_TIMEOUT_SECS;
	// 0 means DefaultDeadline.
	Deadline time.Duration
	// Timing is the waits; each zero field takes DefaultTiming's value.
	Timing Timing
	// HTTPClient sends every request; nil means a client of its own.
	HTTPClient *http.Client
	// Cascade is the roster's `cancel: cascade`: when the
	// calling task ends with a call's outcome undelivered, the call set
	// sends CancelTask for the member's task if it may still be live, and
	// its member_call says cascade_canceled. False keeps CALL-9/CALL-10:
	// a member's task is left running.
	Cascade bool
	// CardKey is the formation's card key (A2A §8.4): before its first call
	// to a callee the member checks the callee's card is signed with it, and
	// refuses the call when it is not. Nil checks nothing.
	CardKey ed25519.PublicKey
	// Formation is the formation id, for the refusal's text.
	Formation string

	cards *cardChecks // the callees whose cards verified, by door URL
}

// Tools returns call-member and end-without-answer by name, for the
// session's tool set (runtime/toolset, tools.md TOOL-1). Each call starts its own
// goroutines, owned by the task's call set and ended by its Abandon.
func Tools(cfg Config) (map[string]tool.Tool, error) {
	if len(cfg.Callees) == 0 {
		return nil, errors.New("member tools: no callees")
	}
	if cfg.Directory == nil {
		return nil, errors.New("member tools: no directory")
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = DefaultDeadline
	}
	cfg.Timing = cfg.Timing.withDefaults()
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	cfg.Callees = append([]string(nil), cfg.Callees...)
	cfg.cards = &cardChecks{ok: map[string]bool{}}
	return map[string]tool.Tool{
		tool.NameCallMember:       &callTool{cfg: &cfg},
		tool.NameEndWithoutAnswer: &ewaTool{cfg: &cfg},
	}, nil
}

// deadlineSecs is <N> in the texts: the deadline in whole seconds.
func (c *Config) deadlineSecs() int { return int(c.Deadline / time.Second) }
