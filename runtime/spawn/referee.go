package spawn

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/murmur-go/mur/runtime/manifest"
)

// The referee's bounds (tools.md DLG-2).
const (
	MaxDepth = 3 // levels of children below a top-level capsule
	MaxLive  = 4 // children a capsule runs at once
)

// Refusal is a referee's refusal (DLG-2): nothing was spawned, and Sentence
// is the whole of what the model is told (DLG-4: the body, no JSON).
type Refusal struct{ Sentence string }

func (r *Refusal) Error() string { return r.Sentence }

// notAllowed is DLG-2's allow-list refusal. name is the capsule the call
// named, with @<version> when the name is allowed at other versions only.
func notAllowed(name string) *Refusal {
	return &Refusal{fmt.Sprintf("capsule '%s' is not in parent's spawn_allow", name)}
}

// tooDeep refuses a child below MaxDepth.
func tooDeep(name string, depth int) *Refusal {
	return &Refusal{fmt.Sprintf("capsule '%s' would run %d levels below the top-level capsule, and delegation goes at most %d levels deep; this capsule is at the last level, so it must do the work itself", name, depth, MaxDepth)}
}

// tooMany refuses a fifth live child.
func tooMany(name string) *Refusal {
	return &Refusal{fmt.Sprintf("capsule '%s' was not started: this capsule already runs %d sub-capsules, the most it may run at once; wait for an outcome before delegating again", name, MaxLive)}
}

// exceeds is DLG-2's envelope refusal.
func exceeds(key, entry string) *Refusal {
	return &Refusal{fmt.Sprintf("%s: the child declares '%s', which its parent does not hold — a spawned capsule can never hold more capability than the capsule that spawned it", key, entry)}
}

// allowed finds capsule@version in the parent's spawn.allow (DLG-1: the
// model names a bare name and an exact version).
func allowed(refs []manifest.SpawnRef, capsule, version string) (manifest.SpawnRef, *Refusal) {
	named := false
	for _, r := range refs {
		if r.Name != capsule {
			continue
		}
		if r.Version == version {
			return r, nil
		}
		named = true
	}
	if named {
		return manifest.SpawnRef{}, notAllowed(capsule + "@" + version)
	}
	return manifest.SpawnRef{}, notAllowed(capsule)
}

// envelope holds child to parent, axis by axis in DLG-2's order, and
// returns the first declaration the child holds beyond its parent. The axes
// this build parses are compared; unix sockets, workdir exec and state
// stores are LATER keys no capsule holds here, so they are equal by
// construction. Containment is the one axis where the child may differ in
// its favour: a floor is a requirement, so it may only rise.
func envelope(parent, child *manifest.Manifest) *Refusal {
	pc, cc := parent.Capabilities, child.Capabilities
	for _, e := range cc.Network.Allow {
		if !covered(pc.Network.Allow, e) {
			return exceeds("capabilities.network.allow", e.Raw)
		}
	}
	if cc.PeerFetch != nil {
		var held manifest.AllowList
		if pc.PeerFetch != nil {
			held = pc.PeerFetch.Allow
		}
		for _, e := range cc.PeerFetch.Allow {
			if !covered(held, e) {
				return exceeds("capabilities.peer_fetch.allow", e.Raw)
			}
		}
	}
	if cc.Shell != nil {
		var held []string
		if pc.Shell != nil {
			held = pc.Shell.Allow
		}
		for _, b := range cc.Shell.Allow {
			if !slices.Contains(held, b) {
				return exceeds("capabilities.shell.allow", b)
			}
		}
	}
	if cc.Spawn != nil {
		for _, r := range cc.Spawn.Refs {
			if pc.Spawn == nil || !slices.Contains(pc.Spawn.Refs, r) {
				return exceeds("capabilities.spawn.allow", r.String())
			}
		}
	}
	for _, n := range envAllow(child) {
		if !slices.Contains(envAllow(parent), n) {
			return exceeds("capabilities.env.allow", n)
		}
	}
	if ps := pc.Filesystem.Scope; ps != "" {
		cs := cc.Filesystem.Scope
		if cs == "" {
			return exceeds("capabilities.filesystem.scope", "(none: the whole workdir)")
		}
		if !within(ps, cs) {
			return exceeds("capabilities.filesystem.scope", cs)
		}
	}
	if floor(cc.Containment) < floor(pc.Containment) {
		declared := cc.Containment
		if declared == "" {
			declared = "(none: whatever the host offers)"
		}
		return exceeds("capabilities.containment", declared)
	}
	return nil
}

// floor ranks a declared containment class: none, advisory, scoped, sealed.
func floor(class string) int {
	switch class {
	case "advisory":
		return 1
	case "scoped":
		return 2
	case "sealed":
		return 3
	}
	return 0
}

// within reports whether scope child is scope parent or beneath it.
func within(parent, child string) bool {
	p, c := path.Clean(parent), path.Clean(child)
	return p == "." || c == p || strings.HasPrefix(c, p+"/")
}

// covered reports whether an entry of held covers e (DLG-2, after murmur's
// rule): a bare host covers every form of that host, at every port and
// scheme; host:port covers that port in every form; a URL entry covers
// only that exact scheme, host and port. localhost covers 127.0.0.1 and
// ::1 (capsule.md §1.3).
func covered(held manifest.AllowList, e manifest.AllowEntry) bool {
	for _, h := range held {
		if !sameHost(h.Host, e.Host) {
			continue
		}
		switch {
		case h.Scheme == "" && h.Port == 0:
			return true
		case h.Scheme == "":
			if e.Port == h.Port {
				return true
			}
		case e.Scheme == h.Scheme && e.Port == h.Port:
			return true
		}
	}
	return false
}

func sameHost(held, host string) bool {
	if held == host {
		return true
	}
	return held == "localhost" && (host == "127.0.0.1" || host == "::1")
}
