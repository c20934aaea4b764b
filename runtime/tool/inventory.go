package tool

import (
	"fmt"
	"slices"
)

// Removed is RMA-3's refusal of a call to a tool remove-artifact took out.
func Removed(name string) string {
	return fmt.Sprintf("tool '%s' was removed from this session; it can no longer be called", name)
}

// Holder says what holds a tool name in a session (PULL-5's "a tool name
// another artifact of the session holds").
type Holder int

// The holders of a tool name.
const (
	HeldByNone     Holder = iota
	HeldByDeclared        // an artifact murmur.yaml declares
	HeldByPulled          // an artifact this session pulled
	HeldByShell           // a shell binary tool
	HeldByRuntime         // a runtime-provided tool
)

// Holder returns what holds name in the inventory now and, for an artifact,
// its full name.
func (r *Registry) Holder(name string) (h Holder, full string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.declared[name] != "":
		return HeldByDeclared, r.declared[name]
	case r.pulled[name] != "":
		return HeldByPulled, r.pulled[name]
	case r.shell[name] != nil:
		return HeldByShell, ""
	case r.runtime[name] != nil:
		return HeldByRuntime, ""
	}
	return HeldByNone, ""
}

// Staged reports whether the runtime-provided tool name was staged (STAGE-3):
// the system prompt carries the plan guidance exactly when submit-plan is
// (STAGE-4).
func (r *Registry) Staged(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.runtime[name]
	return ok
}

// AddPulled puts a pulled artifact in the dispatch allowlist at once and in
// the inventory sent from the next Refresh (PULL-3). It replaces an earlier
// pull of the same tool name; the caller has refused every other holder.
func (r *Registry) AddPulled(a Artifact) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := a.Spec().Name
	r.dropLocked(name)
	if a.Spec().Kind == KindSkill {
		r.skill[name] = a
	} else {
		r.native[name] = a
	}
	r.pulled[name] = fullName(a)
	delete(r.removed, name)
	r.inventory = append(r.inventory, a)
	r.dirty = true
}

// RemovePulled takes a pulled artifact out: a later call to it is refused at
// once with Removed (RMA-3) and it leaves the inventory sent from the next
// Refresh. It reports false when name is no pulled artifact.
func (r *Registry) RemovePulled(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pulled[name] == "" {
		return false
	}
	r.dropLocked(name)
	delete(r.pulled, name)
	r.removed[name] = true
	r.dirty = true
	return true
}

// dropLocked takes name's artifact out of the maps and the inventory.
func (r *Registry) dropLocked(name string) {
	delete(r.native, name)
	delete(r.skill, name)
	r.inventory = slices.DeleteFunc(r.inventory, func(t Tool) bool {
		_, isArt := t.(Artifact)
		return isArt && t.Spec().Name == name
	})
}

// Refresh hands the loop the inventory to send once a pull or a removal
// changed it since the last Refresh (PULL-3, PULL-6, RMA-3): the names added
// and removed since then, sorted, and the whole inventory. changed is false,
// and nothing else is set, when nothing was pulled or removed.
func (r *Registry) Refresh() (added, removed []string, inventory []Spec, changed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.dirty {
		return nil, nil, nil, false
	}
	r.dirty = false
	now := r.namesLocked()
	added, removed = []string{}, []string{}
	for n := range now {
		if _, ok := r.sent[n]; !ok {
			added = append(added, n)
		}
	}
	for n := range r.sent {
		if _, ok := now[n]; !ok {
			removed = append(removed, n)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	r.sent = now
	inventory = make([]Spec, len(r.inventory))
	for i, t := range r.inventory {
		inventory[i] = t.Spec()
	}
	return added, removed, inventory, true
}

// namesLocked is the set of inventory names.
func (r *Registry) namesLocked() map[string]struct{} {
	out := make(map[string]struct{}, len(r.inventory))
	for _, t := range r.inventory {
		out[t.Spec().Name] = struct{}{}
	}
	return out
}

// fullName is an artifact's full name as declared or pulled (MAN-6).
func fullName(a Artifact) string {
	if n := a.FullName(); n != "" {
		return n
	}
	return a.Spec().Name
}
