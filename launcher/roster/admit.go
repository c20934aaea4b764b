package roster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/murmur-go/mur/runtime/diag"
)

// Facts are what admission and the launcher read from a member's packed
// murmur.yaml (capsule.md §1.4, §1.5).
type Facts struct {
	Acceptance    string // lifecycle.task_acceptance: none, single or queue
	QueueDepth    int    // lifecycle.queue_depth (≥ 1)
	PeerTasks     bool   // exports.peer_tasks.accept
	Authenticated bool   // network.authentication is declared
	// RetainMaxSessions and RetainMaxAge are trace.retain (0: not set); the
	// entry member's bound the project's formation directories (RET-1).
	RetainMaxSessions int
	RetainMaxAge      time.Duration
}

// Installed is a capsule found in a store (BIND-1).
type Installed struct {
	TreeDir string // <store>/<capsule>/<version>/tree
	SHA256  string // 64 lowercase hex, recomputed from the tree
	Facts   Facts
	// Scope is the store it was found in ("project" or "global") and
	// SourcePath the directory it was installed from; both "" when the
	// resolver does not know.
	Scope, SourcePath string
}

// Pin is murmur.lock's entry for a capsule (BIND-3).
type Pin struct {
	Version string
	SHA256  string
}

// The errors a Resolver returns from Resolve, told apart by errors.Is /
// errors.As (E-ROS-007's three forms).
var (
	ErrNotInstalled = errors.New("installed in neither store")
	ErrHashMismatch = errors.New("bytes do not match the store's recorded sha256")
)

// UnreadableError is Resolve's error for a packed murmur.yaml that cannot be
// read or parsed; Why is the reason E-ROS-007 prints.
type UnreadableError struct{ Why string }

func (e *UnreadableError) Error() string { return "has no readable murmur.yaml: " + e.Why }

// Resolver reads the stores and murmur.lock of one project for admission.
type Resolver interface {
	// Resolve finds capsule@version in the project store, then the global
	// store (BIND-1). Errors: ErrNotInstalled, ErrHashMismatch,
	// *UnreadableError, or a *diag.Diagnostic passed through as is.
	Resolve(capsule, version string) (Installed, error)
	// Pin returns murmur.lock's pin of capsule; ok is false when the lock
	// is absent or does not pin it. An unreadable lock is a *diag.Diagnostic.
	Pin(capsule string) (p Pin, ok bool, err error)
}

// Advisor is what a Resolver may also offer for E-ROS-007's hint.
type Advisor interface {
	// Advise returns the installed versions of capsule, each as
	// "<version> (<project|global> store)", and the exact command that
	// installs capsule@version from its source directory, "" when no
	// source of that version is found.
	Advise(capsule, version string) (installed []string, install string)
}

// Edge is from → to (ROS-4).
type Edge struct{ From, To string }

// Admitted is one admitted member.
type Admitted struct {
	Member
	Installed
	Callees []string // its edge targets, in roster order (ROS-4)
}

// Formation is an admitted roster (ADM-1).
type Formation struct {
	Roster  *Roster
	Members []Admitted // roster order
	Edges   []Edge     // ordered by the members' roster order, caller then callee
}

// Entry returns the entry member.
func (f *Formation) Entry() *Admitted { return &f.Members[f.Roster.Entry()] }

// Peers returns every member but the entry, in roster order.
func (f *Formation) Peers() []*Admitted {
	var ps []*Admitted
	for i := range f.Members {
		if !f.Members[i].Entry {
			ps = append(ps, &f.Members[i])
		}
	}
	return ps
}

// Admit loads the roster at path and runs ADM-1's checks in order, stopping
// at the first failure, then ADM-2's capacity warnings. It returns the
// admitted formation and its W-ROS-001 warnings, or one diagnostic. It
// writes nothing; checks 1–5 read no store.
func Admit(path string, res Resolver) (*Formation, []*diag.Diagnostic, error) {
	return AdmitContext(context.Background(), path, res)
}

// AdmitContext is Admit that gives up once ctx ends (the launcher's SIGTERM
// or SIGINT during admission): it checks ctx before each member's binding
// and returns context.Cause(ctx). Admission is linear in the roster's
// members and edges (a 64,000-member roster took 29 s to refuse);
// Load bounds both (MaxFileBytes, MaxMembers).
func AdmitContext(ctx context.Context, path string, res Resolver) (*Formation, []*diag.Diagnostic, error) {
	r, err := LoadContext(ctx, path) // check 1
	if err != nil {
		return nil, nil, err
	}
	idx, err := checkStructure(r) // checks 2–5
	if err != nil {
		return nil, nil, err
	}
	f := &Formation{Roster: r, Members: make([]Admitted, len(r.Members))}
	var missing []diag.RosMissing
	for i, m := range r.Members { // check 6: 6a then 6b per member
		if ctx.Err() != nil {
			return nil, nil, context.Cause(ctx)
		}
		inst, err := bind(m, res)
		switch {
		case errors.Is(err, ErrNotInstalled):
			// Every member installed in neither store is named at once,
			// with what would install it (E-ROS-007).
			missing = append(missing, missingMember(i, m, res))
			continue
		case err != nil && len(missing) > 0:
			return nil, nil, diag.RosNotInstalled(missing)
		case err != nil:
			return nil, nil, err
		}
		f.Members[i] = Admitted{Member: m, Installed: inst}
	}
	if len(missing) > 0 {
		return nil, nil, diag.RosNotInstalled(missing)
	}
	callees := edges(r, f.Members, idx)
	f.Edges = make([]Edge, 0, edgeCount(callees))
	for a, bs := range callees {
		m := &f.Members[a]
		if len(bs) > 0 {
			m.Callees = make([]string, len(bs))
		}
		for i, b := range bs {
			m.Callees[i] = f.Members[b].Name
			f.Edges = append(f.Edges, Edge{m.Name, m.Callees[i]})
		}
	}
	if err := checkConsent(r, f, idx); err != nil { // check 7
		return nil, nil, err
	}
	if len(f.Edges) > 0 { // check 8
		for _, m := range f.Members {
			if !m.Facts.Authenticated {
				return nil, nil, diag.RosNoAuth(m.Name)
			}
		}
	}
	return f, capacityWarnings(f, callees), nil
}

// checkStructure runs ADM-1 checks 2–5 and returns each member's index by
// name (once check 2 has passed, names are unique).
func checkStructure(r *Roster) (map[string]int, error) {
	idx := make(map[string]int, len(r.Members))
	for i, m := range r.Members { // 2
		if j, dup := idx[m.Name]; dup {
			return nil, diag.RosDuplicateName(i, m.Name, j)
		}
		idx[m.Name] = i
	}
	var entries []string // 3
	for _, m := range r.Members {
		if m.Entry {
			entries = append(entries, m.Name)
		}
	}
	switch {
	case len(entries) == 0:
		return nil, diag.RosNoEntry()
	case len(entries) > 1:
		return nil, diag.RosManyEntries(entries)
	}
	for _, rule := range r.Rules { // 4
		if _, ok := idx[rule.From]; !ok {
			return nil, diag.RosUnknownMember(rule.From, rule.From)
		}
		for _, to := range rule.To {
			if _, ok := idx[to]; !ok {
				return nil, diag.RosUnknownMember(rule.From, to)
			}
		}
	}
	entry := entries[0]
	for _, rule := range r.Rules { // 5
		for _, to := range rule.To {
			if to == entry {
				return nil, diag.RosEntryCalled(rule.From, entry)
			}
		}
	}
	return idx, nil
}

// bind runs check 6 for one member: 6a (installed, manifest parses), then 6b
// (murmur.lock agrees). A member installed in neither store is
// ErrNotInstalled, for Admit to gather; every other failure is a diagnostic.
func bind(m Member, res Resolver) (Installed, error) {
	inst, err := res.Resolve(m.Capsule, m.Version)
	var ue *UnreadableError
	switch {
	case errors.Is(err, ErrNotInstalled):
		return Installed{}, err
	case errors.Is(err, ErrHashMismatch):
		return Installed{}, diag.RosHashMismatch(m.Name, m.Capsule, m.Version).WithErr(err)
	case errors.As(err, &ue):
		return Installed{}, diag.RosManifestUnreadable(m.Name, m.Capsule, m.Version, ue.Why).WithErr(err)
	case err != nil:
		if _, ok := diag.As(err); ok {
			return Installed{}, err
		}
		return Installed{}, diag.RosManifestUnreadable(m.Name, m.Capsule, m.Version, err.Error()).WithErr(err)
	}
	pin, ok, err := res.Pin(m.Capsule)
	if err != nil {
		return Installed{}, err
	}
	if ok && (pin.Version != m.Version || pin.SHA256 != inst.SHA256) {
		return Installed{}, diag.RosLockPin(m.Name, m.Capsule, m.Version, inst.SHA256, pin.Version, pin.SHA256)
	}
	return inst, nil
}

// missingMember describes member i for E-ROS-007: the versions of its
// capsule that are installed, and the command that installs the one it
// names, when res can tell.
func missingMember(i int, m Member, res Resolver) diag.RosMissing {
	mm := diag.RosMissing{Index: i, Member: m.Name, Capsule: m.Capsule, Version: m.Version}
	if a, ok := res.(Advisor); ok {
		mm.Installed, mm.Install = a.Advise(m.Capsule, m.Version)
	}
	return mm
}

// edges expands the reachability (ROS-4): by caller index, the callee
// indexes in roster order; duplicates count once. It costs the edges'
// number (all pairs under `reachability: all`, else the rules' entries),
// plus clearing one bit per pair of members (at most MaxMembers², 64 KiB).
func edges(r *Roster, ms []Admitted, idx map[string]int) [][]int {
	n := len(ms)
	has := make([]bool, n*n)    // has[a*n+b]: a → b is an edge
	callees := make([][]int, n) // by caller index
	sorted := make([]bool, n)   // callees[a] is in roster order
	for a := range ms {
		sorted[a] = true
	}
	add := func(a, b int) {
		if !has[a*n+b] {
			has[a*n+b] = true
			if k := len(callees[a]); k > 0 && callees[a][k-1] > b {
				sorted[a] = false
			}
			callees[a] = append(callees[a], b)
		}
	}
	if r.All {
		for a := range ms {
			if !ms[a].Facts.PeerTasks {
				continue
			}
			callees[a] = make([]int, 0, n-1)
			for b := range ms {
				if a != b && !ms[b].Entry && ms[b].Facts.PeerTasks {
					add(a, b)
				}
			}
		}
	}
	for _, rule := range r.Rules {
		for _, to := range rule.To {
			add(idx[rule.From], idx[to])
		}
	}
	for a, bs := range callees {
		if !sorted[a] {
			slices.Sort(bs)
		}
	}
	return callees
}

func edgeCount(callees [][]int) int {
	n := 0
	for _, bs := range callees {
		n += len(bs)
	}
	return n
}

// checkConsent is check 7: every member in any to serves peers. Rules are
// taken in order, callees within a rule in order.
func checkConsent(r *Roster, f *Formation, idx map[string]int) error {
	for _, rule := range r.Rules {
		for _, to := range rule.To {
			m := f.Members[idx[to]]
			if !m.Facts.PeerTasks {
				return diag.RosNoConsent(rule.From, to, m.Capsule, m.Version)
			}
		}
	}
	return nil
}

// Capacity is how many tasks a member holds at once (ADM-2).
func (fc Facts) Capacity() int {
	switch fc.Acceptance {
	case "queue":
		return fc.QueueDepth + 1
	case "single":
		return 1
	}
	return 0
}

// capacityWarnings is ADM-2: one W-ROS-001 per callee with more distinct
// callers than it holds, in roster order; callees is edges' result.
func capacityWarnings(f *Formation, callees [][]int) []*diag.Diagnostic {
	callersOf := make([][]string, len(f.Members)) // filled in caller roster order
	for a, bs := range callees {
		for _, b := range bs {
			callersOf[b] = append(callersOf[b], f.Members[a].Name)
		}
	}
	var ws []*diag.Diagnostic
	for i, m := range f.Members {
		callers := callersOf[i]
		if k := m.Facts.Capacity(); len(callers) > k {
			lc := "task_acceptance: " + m.Facts.Acceptance
			if m.Facts.Acceptance == "queue" {
				lc += fmt.Sprintf(", queue_depth: %d", m.Facts.QueueDepth)
			}
			ws = append(ws, diag.RosCapacity(m.Name, callers, k, lc))
		}
	}
	return ws
}
