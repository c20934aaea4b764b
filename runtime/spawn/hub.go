package spawn

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/store"
)

// Timing holds DLG-3's and DLG-5's bounds. Tests shorten them;
// DefaultTiming is the contract.
type Timing struct {
	Ready   time.Duration // from starting the child to its readiness line (180 s)
	Deliver time.Duration // retrying the task's SendMessage while the door comes up (30 s)
	Request time.Duration // each request to the child's door (5 s)
	Exit    time.Duration // a child's time to exit after its outcome, or after SIGTERM (5 s)
}

// DefaultTiming returns DLG-3's and DLG-5's bounds.
func DefaultTiming() Timing {
	return Timing{Ready: 180 * time.Second, Deliver: 30 * time.Second, Request: 5 * time.Second, Exit: 5 * time.Second}
}

func (t Timing) withDefaults() Timing {
	d := DefaultTiming()
	for _, f := range []struct{ v, def *time.Duration }{
		{&t.Ready, &d.Ready}, {&t.Deliver, &d.Deliver}, {&t.Request, &d.Request}, {&t.Exit, &d.Exit},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	return t
}

// Config builds a Hub: what a parent session knows that its children need.
type Config struct {
	// Mur is the mur executable children run; required.
	Mur string
	// Parent is the parent's manifest: its spawn.allow and its envelope
	// (DLG-2); required.
	Parent *manifest.Manifest
	// SessionID and URL are the parent session and its door (DLG-3's
	// MURMUR_SPAWNER); required.
	SessionID, URL string
	// Workdir is the parent's accessible workdir, absolute: children work in
	// <Workdir>/.murmur/children/ (DLG-3); required.
	Workdir string
	// Cwd is where each child starts, so that its store lookup finds what the
	// parent's found (STORE-2).
	Cwd string
	// Stores resolve the child capsule, project store first (STORE-3); the
	// child runs from the same project (--store-root).
	Stores store.Stores
	// Depth is the parent's own depth below its top-level capsule: 0 for a
	// capsule nobody delegated to.
	Depth int
	// FormationID is the parent's formation, "" outside one: a child shares
	// it and nothing else (formations.md CRED-7).
	FormationID string
	// Deadline is the parent's effective deadline, which each child
	// inherits (DLG-3); nil for none.
	Deadline *time.Time
	// Getenv is the parent's process environment: PATH, HOME, MURMUR_HOME and
	// the names both capsules' capabilities.env.allow list are read from it.
	Getenv func(string) string
	// Pass are names each child gets from Getenv as they are, when set: the
	// parent's OpenTelemetry variables, so a child's spans go where its
	// parent's do (OTEL-2).
	Pass []string
	// NoEnvFile is the parent's --no-env-file, which each child gets too;
	// otherwise a child loads its project's .env as its parent did
	// (capsule.md SES-10), so a driver key kept there reaches it.
	NoEnvFile bool
	// LogsDir, when set, receives each child's stderr as <delegation_id>.log.
	LogsDir string
	// CardKey, when set, is the key a child's Agent Card must verify with
	// before its task is handed over (A2A §8.4): the operator's card key in
	// the $MURMUR_HOME parent and child share. Nil checks nothing.
	CardKey ed25519.PublicKey
	// Timing: each zero field takes DefaultTiming's value.
	Timing Timing
}

// Hub is one parent session's children (DLG-2..7). It is the door's
// door.Completions. Safe for concurrent use.
type Hub struct {
	cfg Config
	wg  sync.WaitGroup // every child's goroutines

	mu       sync.Mutex
	children map[string]*Child // by delegation id, until reaped
	slots    int               // children counted against MaxLive: launching or not yet reaped
	closed   bool
}

// New validates cfg and returns an idle Hub.
func New(cfg Config) (*Hub, error) {
	switch {
	case cfg.Mur == "":
		return nil, errors.New("spawn: no mur executable")
	case cfg.Parent == nil:
		return nil, errors.New("spawn: no parent manifest")
	case cfg.SessionID == "" || cfg.URL == "":
		return nil, errors.New("spawn: no parent session or door")
	case cfg.Workdir == "":
		return nil, errors.New("spawn: no parent workdir")
	}
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	cfg.Timing = cfg.Timing.withDefaults()
	return &Hub{cfg: cfg, children: map[string]*Child{}}, nil
}

// Request is one delegation (DLG-1).
type Request struct {
	// Capsule is the bare name, Version the exact version, Task the child's
	// first user message.
	Capsule, Version, Task string
	// ID is the delegation id (dlg_…), minted by the caller so that every
	// result names it; "" mints one.
	ID string
	// ContextID and Trust are the delegating task's: MURMUR_SPAWNER carries
	// them, the completion's x-murmur-task-trust echoes the trust.
	ContextID, Trust string
	// Stay keeps the child's door up after its task (queue + sleep), so that
	// a plan's capsule step can read its answer (PLAN-6); otherwise the
	// child runs the one task and ends its session (single + exit), which
	// is what sends its completion.
	Stay bool
	// Ready, when set, is called once the child's readiness line arrived,
	// before the task is sent (DLG-3: delegation_start).
	Ready func(c *Child)
}

// LaunchError is a delegation that started no child holding its task
// (DLG-4 failed): Output is the sentence the result carries; any child it
// started has been stopped and reaped.
type LaunchError struct {
	Output    string
	SessionID string // the child's session, when it reported one
}

func (e *LaunchError) Error() string { return e.Output }

// Delegate referees req (DLG-2) and launches its child (DLG-3). It returns
// the child once it holds its task; a *Refusal when the referee refused
// (nothing spawned); a *LaunchError otherwise (anything spawned is stopped
// and reaped before it returns). ctx ending (the delegating task cancelled)
// stops the launch.
func (h *Hub) Delegate(ctx context.Context, req Request) (*Child, error) {
	if req.ID == "" {
		req.ID = a2a.NewID(a2a.PrefixDelegation)
	}
	var refs []manifest.SpawnRef
	if sp := h.cfg.Parent.Capabilities.Spawn; sp != nil {
		refs = sp.Refs
	}
	if _, ref := allowed(refs, req.Capsule, req.Version); ref != nil {
		return nil, ref
	}
	if d := h.cfg.Depth + 1; d > MaxDepth {
		return nil, tooDeep(req.Capsule, d)
	}
	if err := h.reserve(req.Capsule); err != nil {
		return nil, err
	}
	c, handed, err := h.launch(ctx, req)
	if err != nil && !handed {
		h.release() // a child that started gives its slot back once it is reaped
	}
	return c, err
}

// reserve takes one of MaxLive slots (DLG-2), or refuses.
func (h *Hub) reserve(capsule string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return &LaunchError{Output: fmt.Sprintf("capsule '%s' was not started: this session is ending", capsule)}
	}
	if h.slots >= MaxLive {
		return tooMany(capsule)
	}
	h.slots++
	return nil
}

func (h *Hub) release() {
	h.mu.Lock()
	h.slots--
	h.mu.Unlock()
}

// Live is how many children count against MaxLive now.
func (h *Hub) Live() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.slots
}

// Complete hands a posted completion to the live delegation it names
// (door.md PEER-5, DLG-7): false when this session has none by that id. A
// completion for a delegation whose outcome is already settled is accepted
// and changes nothing (nothing is reported twice).
func (h *Hub) Complete(delegationID string, msg a2a.Message) bool {
	h.mu.Lock()
	c := h.children[delegationID]
	h.mu.Unlock()
	if c == nil {
		return false
	}
	c.completed(a2a.Text(msg.Parts))
	return true
}

// Bearer returns the delegation a completion token was minted for (door.md
// ORD-1 step 2), while that child lives.
func (h *Hub) Bearer(token string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, c := range h.children {
		if equalToken(c.completionToken, token) {
			return id, true
		}
	}
	return "", false
}

// Close ends every child still running — SIGTERM, then SIGKILL to its group
// after Timing.Exit — and waits for all of them and their goroutines. Later
// delegations are refused. Safe to call more than once.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	var live []*Child
	for _, c := range h.children {
		live = append(live, c)
	}
	h.mu.Unlock()
	for _, c := range live {
		select {
		case <-c.Done():
			c.armKill() // its outcome is in: it has Timing.Exit to end on its own (DLG-5)
		default:
			if !c.isHeld() {
				c.terminate() // still launching: its Delegate sees it end and stops and reaps it
				continue
			}
			c.Terminate("the delegating session ended before this sub-capsule finished")
		}
	}
	h.wg.Wait()
}

// token is a fresh secret: prefix + 32 random bytes, base64url.
func token(prefix string) string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// childDirName is <capsule>-<16 hex>, fresh per delegation (DLG-3).
func childDirName(capsule string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return capsule + "-" + hex.EncodeToString(b[:])
}
