package peerfile

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/trace"
)

// Config is one session's exports.peer_files and what the plane needs of
// the session.
type Config struct {
	SessionID string // the minting session: a handle's iss
	Workdir   string // the accessible workdir, absolute
	Root      string // exports.peer_files.root, relative to Workdir
	MaxTTL    time.Duration
	MaxBytes  int64
	// Network is capabilities.network.allow: share-file's card fetch is an
	// ordinary outbound request under it (minting grants no new authority).
	Network manifest.AllowList
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Record writes a record under the session node (peer_handle_redeem);
	// it is called concurrently, from the door's request goroutines. Nil
	// records nothing.
	Record func(trace.Record)
	// Generation is the count of tasks that reached a terminal state in
	// this runtime process (nil: 0).
	Generation func() uint64
	// Client sends share-file's card fetch (nil: NewClient()).
	Client *http.Client
}

// Plane is one session's peer plane (tools.md PFILE): the minting key,
// share-file, and the redeem the door dispatches GET
// /resources/peer/<handle> to. Its methods are safe for concurrent use.
type Plane struct {
	cfg     Config
	base    string   // the directory walks start from: the workdir, resolved
	root    []string // the components from base to the export root
	digests digests
	openat  openatFunc // opens the file itself (the walk's last step); a test makes it fail

	mu      sync.RWMutex
	key     []byte        // nil once Close voided every handle
	serving int           // answers sent now, whose Done has not run
	idle    chan struct{} // closed when serving drops to 0 after Close
}

// closeWait bounds how long Close waits for answers being sent, so that
// their records land before session_end; it is the door's shutdown wait.
const closeWait = 5 * time.Second

// NewPlane mints the session's key (PFILE-3: 32 random bytes, in memory
// only) and returns the plane.
func NewPlane(cfg Config) (*Plane, error) {
	switch {
	case cfg.SessionID == "":
		return nil, errors.New("peer plane: no session id")
	case !filepath.IsAbs(cfg.Workdir):
		return nil, fmt.Errorf("peer plane: workdir %q is not absolute", cfg.Workdir)
	case cfg.MaxTTL <= 0 || cfg.MaxBytes <= 0:
		return nil, errors.New("peer plane: max_ttl and max_bytes must be positive")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Client == nil {
		cfg.Client = NewClient()
	}
	p := &Plane{cfg: cfg, key: peerplane.NewKey(), openat: sysOpenat}
	p.base, p.root = rootParts(cfg.Workdir, cfg.Root)
	return p, nil
}

// Close zeroes and drops the key: from now on no handle this session
// minted verifies (PFILE-3: session end voids every handle). It then waits,
// at most closeWait, for the answers being sent to end, so that their
// peer_handle_redeem records are written before the session's last record.
// Safe to call more than once.
func (p *Plane) Close() {
	p.mu.Lock()
	clear(p.key)
	p.key = nil
	if p.serving == 0 {
		p.mu.Unlock()
		return
	}
	if p.idle == nil {
		p.idle = make(chan struct{})
	}
	idle := p.idle
	p.mu.Unlock()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

// served counts an answer in (+1) or out (-1) of the ones being sent.
func (p *Plane) served(d int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.serving += d
	if p.serving == 0 && p.idle != nil {
		close(p.idle)
		p.idle = nil
	}
}

// mint returns a token for payload bound to audience; false once closed.
func (p *Plane) mint(pl peerplane.Payload, audience string) (string, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.key == nil {
		return "", false
	}
	tok, err := peerplane.Mint(p.key, pl, audience)
	return tok, err == nil
}

// verify checks h's MAC for audience; false once closed.
func (p *Plane) verify(h *peerplane.Handle, audience string) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return h.Verify(p.key, audience)
}

func (p *Plane) generation() uint64 {
	if p.cfg.Generation == nil {
		return 0
	}
	return p.cfg.Generation()
}

func (p *Plane) record(r trace.Record) {
	if p.cfg.Record != nil {
		p.cfg.Record(r)
	}
}

// open resolves rel below the export root (walk.go) and checks the size.
func (p *Plane) open(rel string) (*opened, *refused) {
	parts, rf := splitRel(rel)
	if rf != nil {
		return nil, rf
	}
	o, rf := openBelow(p.openat, p.base, p.root, parts)
	if rf != nil {
		return nil, rf
	}
	if o.id.size > p.cfg.MaxBytes {
		o.f.Close()
		return nil, &refused{peerplane.TooLarge(o.id.size, p.cfg.MaxBytes),
			fmt.Sprintf("the file is %d bytes, over exports.peer_files.max_bytes %d", o.id.size, p.cfg.MaxBytes)}
	}
	return o, nil
}

// Redeem answers one GET /resources/peer/<handle> (PFILE-5), checking in
// order: the token's shape, the audience header, the MAC (in constant time;
// every failure the one handle_not_valid), the expiry, then the path. Every
// answer writes one peer_handle_redeem (PFILE-6): a refusal at once, a
// served file when its Done reports how the answer ended.
func (p *Plane) Redeem(_ context.Context, req peerplane.Request) (*peerplane.File, error) {
	rec := trace.PeerHandleRedeem{HandleID: peerplane.ID(req.Handle), Generation: p.generation()}
	if req.HasAudience {
		a := req.Audience
		rec.AudienceAsserted = &a
	}
	refuse := func(rf *peerplane.Refusal, reason string) error {
		rec.Outcome, rec.Reason = rf.Code, &reason
		p.record(rec)
		return rf
	}
	h, err := peerplane.Parse(req.Handle)
	if err != nil {
		return nil, refuse(peerplane.MalformedHandle(), "the handle is not mh1.<payload>.<mac> with a version 1 payload")
	}
	audience := strings.ToLower(strings.TrimSpace(req.Audience)) // PEER-1
	if audience == "" {
		return nil, refuse(peerplane.MissingAudience(), "the request carries no x-murmur-audience, or an empty one")
	}
	if !p.verify(h, audience) {
		return nil, refuse(peerplane.HandleNotValid(), "the MAC does not verify for the asserted audience under this session's key")
	}
	path := h.Payload.P // verified: recorded as fact from here on
	rec.Path = &path
	if exp := time.UnixMilli(h.Payload.Exp); !p.cfg.Now().Before(exp) {
		return nil, refuse(peerplane.HandleExpired(exp), "the handle expired at "+exp.UTC().Format(time.RFC3339Nano))
	}
	o, rf := p.open(path)
	if rf != nil {
		return nil, refuse(rf.r, rf.reason)
	}
	sum, same, err := p.digests.sum(o, func() (fileID, error) { return restat(o) })
	switch {
	case err != nil:
		o.f.Close()
		return nil, refuse(peerplane.IOError(), "the file could not be read: "+err.Error())
	case !same:
		o.f.Close()
		return nil, refuse(peerplane.IOError(), "the file changed while it was read")
	}
	size := o.id.size
	p.served(1)
	return &peerplane.File{
		Body: o.f, Size: size, SHA256: sum, HandleID: rec.HandleID, Generation: rec.Generation, ModTime: o.id.mtime,
		Done: func(n int64, err error) {
			defer p.served(-1)
			o.f.Close()
			if err != nil || n != size {
				reason := fmt.Sprintf("the answer ended after %d of %d bytes", n, size)
				if err != nil {
					reason += ": " + err.Error()
				}
				rec.Outcome, rec.Reason = peerplane.CodeIOError, &reason
				p.record(rec)
				return
			}
			rec.Outcome, rec.Bytes, rec.SHA256 = "ok", &size, &sum
			p.record(rec)
		},
	}, nil
}
