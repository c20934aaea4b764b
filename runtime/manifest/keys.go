package manifest

import (
	"regexp"
	"sort"

	"gopkg.in/yaml.v3"
)

// Key is one key of murmur.yaml that the decoder knows.
type Key struct {
	// Path is the key's dotted path: "[]" stands for any entry of a list,
	// "*" for any key of a mapping that takes every key (control).
	// Example: "capabilities.shell.allow", "artifacts[].name".
	Path string
	// Later is true for a LATER key: validated, then ignored with W-SEC-019.
	Later bool
}

// Keys returns every key the decoder knows, sorted by path: every block and
// every key in it, including LATER keys and the removed inference.model,
// .endpoint and .api_key (E-MAN-003). It walks the decoder's own field
// tables — each known key's decoder is run on a probe mapping and a probe
// list, which reaches the tables nested below it — so it lists exactly what
// Load reads, and docs/manifest.md is tested against it.
func Keys() []Key {
	l := &loader{m: &Manifest{}, set: map[string]bool{}, probe: map[string]bool{}}
	l.top(probeMapping(), false)
	out := make([]Key, 0, len(l.probe))
	for p, later := range l.probe {
		out = append(out, Key{Path: p, Later: later})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// listIndex is a list entry's index in a dotted path ("artifacts[2].name").
var listIndex = regexp.MustCompile(`\[\d+\]`)

// probeFields records fields, the table of the mapping at path, then runs
// each key's decoder once on a probe mapping and once on a probe list, so
// the tables it decodes with (a nested block, a list's entries) record
// theirs. Faults and warnings go to the probing loader, which is dropped.
func (l *loader) probeFields(path string, fields []field) {
	for _, f := range fields {
		dotted := join(path, f.key)
		p := listIndex.ReplaceAllString(dotted, "[]")
		if _, seen := l.probe[p]; seen {
			continue
		}
		l.probe[p] = f.later
		f.fn(dotted, probeMapping())
		f.fn(dotted, probeList())
	}
}

// probeOpen records the keys of an open mapping at path, one that takes
// any key: "*", and the keys it gives a meaning.
func (l *loader) probeOpen(path string, known map[string]func(*loader, string, *yaml.Node)) {
	p := listIndex.ReplaceAllString(path, "[]")
	l.probe[p+".*"] = false
	for k := range known {
		l.probe[p+"."+k] = false
	}
}

// probeMapping is a mapping holding one key, "*", with no value: unknown to
// every table but those that take any key, and not empty, so a block that
// refuses an empty mapping still decodes it.
func probeMapping() *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "*"},
		{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""},
	}}
}

// probeList is a list holding one probe mapping.
func probeList() *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{probeMapping()}}
}
