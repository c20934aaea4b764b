package launcher

import (
	"errors"
	"sync"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/store"
)

// StoreResolver is admission's view of a project (BIND-1, BIND-3, BIND-4):
// its project store, then the global store, and its murmur.lock. It reads
// and never writes. Safe for concurrent use.
type StoreResolver struct {
	stores store.Stores

	once    sync.Once
	lock    *store.Lock
	lockErr error

	mu   sync.Mutex
	seen map[string]resolved // capsule@version: each is hashed once per admission
}

type resolved struct {
	inst roster.Installed
	err  error
}

var _ roster.Resolver = (*StoreResolver)(nil)

// NewStoreResolver resolves for the formation whose roster sits in project.
// One resolver serves one admission: it answers each capsule@version as it
// first found it.
func NewStoreResolver(project, home string) *StoreResolver {
	return &StoreResolver{stores: store.Stores{ProjectDir: project, Home: home}}
}

// Resolve finds capsule@version and reads its packed murmur.yaml (ADM-1 6a).
// Members running one capsule@version share one lookup: its tree is hashed
// once, however many members name it.
func (r *StoreResolver) Resolve(capsule, version string) (roster.Installed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := capsule + "@" + version
	if v, ok := r.seen[k]; ok {
		return v.inst, v.err
	}
	inst, err := r.resolve(capsule, version)
	if r.seen == nil {
		r.seen = map[string]resolved{}
	}
	r.seen[k] = resolved{inst, err}
	return inst, err
}

func (r *StoreResolver) resolve(capsule, version string) (roster.Installed, error) {
	res, err := r.stores.Resolve(capsule, version)
	switch {
	case errors.Is(err, store.ErrNotInstalled):
		return roster.Installed{}, roster.ErrNotInstalled
	case errors.Is(err, store.ErrHashMismatch):
		return roster.Installed{}, roster.ErrHashMismatch
	case err != nil:
		return roster.Installed{}, &roster.UnreadableError{Why: reason(err)}
	}
	m, _, err := manifest.LoadArtifact(res.TreeDir)
	if err != nil {
		return roster.Installed{}, &roster.UnreadableError{Why: reason(err)}
	}
	if m.Runtime != "" && m.Runtime != "capsule" {
		return roster.Installed{}, &roster.UnreadableError{Why: "it declares runtime: " + m.Runtime + ", not a capsule"}
	}
	return roster.Installed{TreeDir: res.TreeDir, SHA256: res.SHA256, Facts: factsOf(m),
		Scope: string(res.Scope), SourcePath: res.Meta.SourcePath}, nil
}

// Pin reads the project's murmur.lock once (ADM-1 6b).
func (r *StoreResolver) Pin(capsule string) (roster.Pin, bool, error) {
	r.once.Do(func() { r.lock, r.lockErr = store.ReadLock(r.stores.ProjectDir) })
	if r.lockErr != nil {
		return roster.Pin{}, false, r.lockErr
	}
	e, ok := r.lock.Find(capsule)
	return roster.Pin{Version: e.ResolvedVersion, SHA256: e.SHA256}, ok, nil
}

// factsOf reads what admission and the launcher need of a manifest.
func factsOf(m *manifest.Manifest) roster.Facts {
	f := roster.Facts{Acceptance: m.Lifecycle.TaskAcceptance, QueueDepth: m.Lifecycle.QueueDepth,
		PeerTasks: m.Exports.PeerTasks.Accept, Authenticated: m.Network.Authentication != nil}
	if r := m.Trace.Retain; r != nil {
		f.RetainMaxSessions, f.RetainMaxAge = r.MaxSessions, r.MaxAge
	}
	return f
}

// reason is a store or manifest error as E-ROS-007's "<why>".
func reason(err error) string {
	if d, ok := diag.As(err); ok {
		return d.Msg
	}
	return err.Error()
}
