package artifact

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/tool"
)

// maxMatches is how many matches a pattern lists (PULL-4).
const maxMatches = 50

// place is one store a pull may consult, in STORE-3 order.
type place struct {
	scope store.Scope
	label string
}

// places are the stores install.from allows (default: stores), and a note
// for each place this build cannot consult (PULL-3 notes): a GitHub source
// (install.from: sources) is LATER.
func (in *Installer) places() ([]place, []string) {
	var out []place
	var notes []string
	for _, f := range fromOrDefault(in.cfg.Grant.From) {
		switch f {
		case "stores":
			if in.cfg.Stores.ProjectDir != "" {
				out = append(out, place{store.ScopeProject, placeProject})
			}
			out = append(out, place{store.ScopeGlobal, placeGlobal})
		case "sources":
			notes = append(notes, noteSources())
		default:
			notes = append(notes, noteUnknownPlace(f))
		}
	}
	seen := map[place]bool{}
	return slices.DeleteFunc(out, func(p place) bool {
		dup := seen[p]
		seen[p] = true
		return dup
	}), notes
}

// heldVersion is one version of an artifact the allowed places hold.
type heldVersion struct {
	version string
	runtime string   // meta.json's runtime, from the first place holding it
	in      []string // place labels, in STORE-3 order
	fits    bool     // its payload fits this mur (PULL-5: no WASM payload does)
	tree    string   // the first holder's tree
}

// held lists the versions of bare name the places hold, newest first, and a
// note for each place that could not be read.
func (in *Installer) held(places []place, name string) ([]heldVersion, []string) {
	byVersion := map[string]*heldVersion{}
	var notes []string
	for _, p := range places {
		rows, err := in.cfg.Stores.List(p.scope)
		if err != nil {
			notes = append(notes, noteUnreadable(p.label, err))
			continue
		}
		for _, row := range rows {
			if row.Meta.Name != name {
				continue
			}
			v := row.Meta.Version
			h := byVersion[v]
			if h == nil {
				tree := filepath.Join(in.cfg.Stores.Root(p.scope), name, v, "tree")
				h = &heldVersion{version: v, runtime: row.Meta.Runtime, tree: tree, fits: fits(tree)}
				byVersion[v] = h
			}
			h.in = append(h.in, p.label)
		}
	}
	out := make([]heldVersion, 0, len(byVersion))
	for _, h := range byVersion {
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b heldVersion) int { return store.CompareVersions(b.version, a.version) })
	return out, notes
}

func findVersion(held []heldVersion, v string) (heldVersion, bool) {
	for _, h := range held {
		if h.version == v {
			return h, true
		}
	}
	return heldVersion{}, false
}

// newestFitting is the newest held version that fits, "" when none does.
func newestFitting(held []heldVersion) string {
	for _, h := range held {
		if h.fits {
			return h.version
		}
	}
	return ""
}

// fits reports whether the payload in tree fits the WIT level this mur
// serves: there are no WASM artifacts in this release, so every native tool
// and skill fits and a WASM payload (implementation or execution: wasm)
// never does (PULL-5, E-WIT-LEVEL-001). A manifest that cannot be read is
// left to the resolution, which refuses it not-fetched:.
func fits(tree string) bool {
	p, ok := peek(tree)
	return !ok || !strings.EqualFold(p.Implementation, "wasm") && !strings.EqualFold(p.Execution, "wasm")
}

// peeked is what a listing reads of an installed manifest without loading it.
type peeked struct {
	Implementation string `yaml:"implementation"`
	Execution      string `yaml:"execution"`
	Description    string `yaml:"description"`
}

// peek reads tree/murmur.yaml's few keys a listing shows; ok is false when
// it cannot be read.
func peek(tree string) (peeked, bool) {
	var p peeked
	b, err := os.ReadFile(filepath.Join(tree, manifest.FileName))
	if err != nil || yaml.Unmarshal(b, &p) != nil {
		return p, false
	}
	return p, true
}

// match is one entry of a pattern's matches (PULL-4).
type match struct {
	full, runtime string
	held          []heldVersion
}

// list answers a pattern ending in * (PULL-4): the artifacts the pattern
// names that an entry of their own tier's list also names, held in an
// allowed place, by name, at most 50. Stores record bare names (MAN-6), so
// a held artifact's full name takes its scope from the grant entry that
// names it, or, for an entry without one (a bare *), from the pattern.
func (in *Installer) list(pattern string) tool.Result {
	const self = tool.NamePullArtifact
	g := in.cfg.Grant
	q := strings.TrimSuffix(pattern, "*")
	if !reaches(g.Tool, q) && !reaches(g.Skill, q) {
		return tool.Refusal(self, pullNoPattern(pattern, g))
	}
	places, notes := in.places()
	bare := map[string]bool{}
	for _, p := range places {
		rows, err := in.cfg.Stores.List(p.scope)
		if err != nil {
			notes = append(notes, noteUnreadable(p.label, err))
			continue
		}
		for _, r := range rows {
			bare[r.Meta.Name] = true
		}
	}
	seen := map[string]bool{}
	var found []match
	for _, tier := range []struct {
		name    string
		entries []string
	}{{"tool", g.Tool}, {"skill", g.Skill}} {
		for _, full := range candidates(tier.entries, q, bare) {
			_, name := manifest.SplitRef(full)
			if seen[full] || !strings.HasPrefix(full, q) || manifest.IsReserved(name) || !bare[name] {
				continue
			}
			held, _ := in.held(places, name)
			held = slices.DeleteFunc(held, func(h heldVersion) bool { return h.runtime != tier.name })
			if len(held) == 0 {
				continue
			}
			seen[full] = true
			found = append(found, match{full: full, runtime: tier.name, held: held})
		}
	}
	slices.SortFunc(found, func(a, b match) int { return strings.Compare(a.full, b.full) })
	omitted := 0
	if len(found) > maxMatches {
		omitted = len(found) - maxMatches
		found = found[:maxMatches]
	}
	matches := make([]map[string]any, 0, len(found))
	for _, m := range found {
		matches = append(matches, m.entry())
	}
	data := map[string]any{"pattern": pattern, "matches": matches, "omitted": omitted}
	if len(notes) > 0 {
		data["notes"] = notes
	}
	return tool.Result{Status: tool.Passed, Summary: fmt.Sprintf("%s: %s lists %d match(es)", self, pattern, len(matches)), Data: tool.JSON(data)}
}

// entry renders a match (PULL-4).
func (m match) entry() map[string]any {
	var versions, heldIn []string
	for _, h := range m.held {
		versions = append(versions, h.version)
		for _, l := range h.in {
			if !slices.Contains(heldIn, l) {
				heldIn = append(heldIn, l)
			}
		}
	}
	slices.SortFunc(heldIn, func(a, b string) int { return strings.Compare(b, a) }) // project store first
	e := map[string]any{"artifact": m.full, "runtime": m.runtime, "versions": versions, "held_in": heldIn}
	if v := newestFitting(m.held); v != "" {
		e["newest_fitting"] = v
	}
	if p, ok := peek(m.held[0].tree); ok && p.Description != "" {
		e["description"] = p.Description
	}
	return e
}

// reaches reports whether a pattern's prefix q reaches a name an entry
// grants: a full-name entry starting with q, or a pattern entry whose prefix
// and q are prefixes one of the other.
func reaches(entries []string, q string) bool {
	for _, e := range entries {
		if p, ok := strings.CutSuffix(e, "*"); ok {
			if strings.HasPrefix(p, q) || strings.HasPrefix(q, p) {
				return true
			}
		} else if strings.HasPrefix(e, q) {
			return true
		}
	}
	return false
}

// candidates are the full names a tier's entries grant for the held bare
// names: each full-name entry, and for each pattern entry every held name
// under the entry's scope (or the pattern's, for an entry without one).
func candidates(entries []string, q string, bare map[string]bool) []string {
	var out []string
	for _, e := range entries {
		p, isPattern := strings.CutSuffix(e, "*")
		if !isPattern {
			out = append(out, e)
			continue
		}
		scope := scopeOf(p)
		if scope == "" {
			scope = scopeOf(q)
		}
		if scope == "" {
			continue
		}
		for name := range bare {
			if full := scope + "/" + name; strings.HasPrefix(full, p) {
				out = append(out, full)
			}
		}
	}
	return out
}

// scopeOf is the part of a name prefix before its last '/', "" when none.
func scopeOf(prefix string) string {
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		return prefix[:i]
	}
	return ""
}
