package manifest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/diag"
)

// loader walks a parsed murmur.yaml node tree into a Manifest, collecting
// warnings (MAN-2), missing required keys (MAN-4 step 3) and type, enum and
// range faults (step 4) separately, so the steps report in MAN-4's order
// whatever order the document holds its keys in.
type loader struct {
	file   string // the manifest path as given, for messages
	m      *Manifest
	set    map[string]bool // dotted keys present with a value
	warns  []*diag.Diagnostic
	miss   []*diag.Diagnostic // step 3, in check order
	faults []*diag.Diagnostic // step 4, in check order

	// raw allow entries, parsed at step 5 (E-CAP-001)
	netAllow, peerFetchAllow []string

	// process is inference.transport: process, read before the walk
	// (peekTransport): blocks decoded before inference depend on it.
	process bool

	// probe, when not nil, collects every key the field tables know (Keys).
	probe map[string]bool

	// pos is where each dotted key's value starts in the file, for the
	// file:line:col of a fault about it.
	pos map[string]yaml.Node
	// unknown are each mapping's unrecognized keys, by its path.
	unknown map[string][]string
}

// note records where dotted's value n starts.
func (l *loader) note(dotted string, n *yaml.Node) {
	if n == nil || n.Line == 0 {
		return
	}
	if l.pos == nil {
		l.pos = map[string]yaml.Node{}
	}
	l.pos[dotted] = yaml.Node{Line: n.Line, Column: n.Column}
}

// at is the file with the line and column of dotted's value
// ("murmur.yaml:7:14"), or the file alone when the key has no place in it.
func (l *loader) at(dotted string) string {
	if p, ok := l.pos[dotted]; ok {
		return fmt.Sprintf("%s:%d:%d", l.file, p.Line, p.Column)
	}
	return l.file
}

// field is one known key of a mapping.
type field struct {
	key string
	fn  func(dotted string, v *yaml.Node)
	// empty: call fn even for a null value, because a rule refuses an empty
	// block (MAN-3); otherwise a null value is an absent key.
	empty bool
	// later: a LATER key, validated by fn then ignored with W-SEC-019.
	later bool
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (l *loader) fault(d *diag.Diagnostic) { l.faults = append(l.faults, d) }

func (l *loader) invalid(dotted, format string, args ...any) {
	l.fault(diag.ManInvalid(l.at(dotted), dotted, fmt.Sprintf(format, args...)))
}

// mapping decodes the mapping n at path with fields: unknown keys warn
// (W-SEC-019, with the nearest known key), required keys missing are
// recorded for step 3, then each present field's fn runs in fields order.
// It returns false when n is not a mapping (a step-4 fault).
func (l *loader) mapping(path string, n *yaml.Node, fields []field, required ...string) bool {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		l.invalid(path, "must be a mapping")
		return false
	}
	known := make([]string, len(fields))
	for i, f := range fields {
		known[i] = f.key
	}
	vals := map[string]*yaml.Node{}
	var unknown []string
	for _, kv := range pairs(n) {
		k := kv[0].Value
		if !contains(known, k) {
			l.note(join(path, k), kv[0])
			l.warns = append(l.warns, diag.SecUnknownKey(l.at(join(path, k)), k, path, diag.Nearest(k, known)))
			unknown = append(unknown, k)
			continue
		}
		vals[k] = kv[1]
		l.note(join(path, k), kv[1])
	}
	if len(unknown) > 0 {
		if l.unknown == nil {
			l.unknown = map[string][]string{}
		}
		l.unknown[path] = unknown
	}
	for _, r := range required {
		if v, ok := vals[r]; !ok || isNull(v) {
			l.miss = append(l.miss, l.missing(path, r))
		}
	}
	for _, f := range fields {
		v, ok := vals[f.key]
		if !ok || (isNull(v) && !f.empty) {
			continue
		}
		dotted := join(path, f.key)
		if !isNull(v) {
			l.set[dotted] = true
		}
		f.fn(dotted, v)
		if f.later {
			l.warns = append(l.warns, diag.SecNotSupported(dotted))
		}
	}
	if l.probe != nil {
		l.probeFields(path, fields)
	}
	return true
}

// missing is E-MAN-001 for the required key r of the mapping at path
// (decoded already), naming its unknown key that is a misspelling of r, if
// any.
func (l *loader) missing(path, r string) *diag.Diagnostic {
	for _, k := range l.unknown[path] {
		if diag.Nearest(k, []string{r}) == r {
			return diag.ManMissingKeyNear(l.file, join(path, r), l.at(join(path, k)), k)
		}
	}
	return diag.ManMissingKey(l.file, join(path, r))
}

// present reports whether the dotted key had a value.
func (l *loader) present(dotted string) bool { return l.set[dotted] }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// resolve follows aliases and unwraps documents.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 64; i++ {
		switch {
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// pairs returns a mapping's key/value pairs in document order, with merge
// keys (`<<`) expanded; explicit keys win over merged ones.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	var out [][2]*yaml.Node
	seen := map[string]bool{}
	var merged [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if k.Tag == "!!merge" {
			for _, src := range mergeSources(v) {
				merged = append(merged, pairs(src)...)
			}
			continue
		}
		seen[k.Value] = true
		out = append(out, [2]*yaml.Node{k, v})
	}
	for _, kv := range merged {
		if !seen[kv[0].Value] {
			seen[kv[0].Value] = true
			out = append(out, kv)
		}
	}
	return out
}

func mergeSources(v *yaml.Node) []*yaml.Node {
	v = resolve(v)
	switch v.Kind {
	case yaml.MappingNode:
		return []*yaml.Node{v}
	case yaml.SequenceNode:
		var out []*yaml.Node
		for _, c := range v.Content {
			if c = resolve(c); c.Kind == yaml.MappingNode {
				out = append(out, c)
			}
		}
		return out
	}
	return nil
}

// kindName names a node's type for faults.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!bool":
		return "a boolean"
	case "!!int", "!!float":
		return "a number"
	}
	return "a string"
}

// str reads a string; an unquoted number reads as its source text (MAN-3).
func (l *loader) str(dotted string, v *yaml.Node) (string, bool) {
	v = resolve(v)
	if v.Kind == yaml.ScalarNode {
		switch v.Tag {
		case "!!str", "!!int", "!!float", "!!timestamp", "!!binary":
			return v.Value, true
		}
	}
	l.invalid(dotted, "must be a string, not %s", kindName(v))
	return "", false
}

func (l *loader) integer(dotted string, v *yaml.Node) (int64, bool) {
	v = resolve(v)
	if v.Kind == yaml.ScalarNode && v.Tag == "!!int" {
		var n int64
		if err := v.Decode(&n); err == nil {
			return n, true
		}
	}
	l.invalid(dotted, "'%s' is not an integer", scalarText(v))
	return 0, false
}

// atLeast reads an integer ≥ min (MAN-5: negative or forbidden 0).
func (l *loader) atLeast(dotted string, v *yaml.Node, min int64) (int64, bool) {
	n, ok := l.integer(dotted, v)
	if !ok {
		return 0, false
	}
	if n < min {
		switch min {
		case 0:
			l.invalid(dotted, "must not be negative")
		case 1:
			l.invalid(dotted, "must be greater than 0")
		default:
			l.invalid(dotted, "must be at least %d", min)
		}
		return 0, false
	}
	return n, true
}

func (l *loader) boolean(dotted string, v *yaml.Node) (bool, bool) {
	v = resolve(v)
	if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
		var b bool
		if err := v.Decode(&b); err == nil {
			return b, true
		}
	}
	l.invalid(dotted, "'%s' is not true or false", scalarText(v))
	return false, false
}

func (l *loader) enum(dotted string, v *yaml.Node, allowed ...string) (string, bool) {
	s, ok := l.str(dotted, v)
	if !ok {
		return "", false
	}
	if !contains(allowed, s) {
		l.fault(diag.ManNotOneOf(l.at(dotted), dotted, s, allowed...))
		return "", false
	}
	return s, true
}

func (l *loader) strList(dotted string, v *yaml.Node) ([]string, bool) {
	v = resolve(v)
	if v.Kind != yaml.SequenceNode {
		l.invalid(dotted, "must be a list, not %s", kindName(v))
		return nil, false
	}
	out := make([]string, 0, len(v.Content))
	for i, c := range v.Content {
		l.note(fmt.Sprintf("%s[%d]", dotted, i), c)
		s, ok := l.str(fmt.Sprintf("%s[%d]", dotted, i), c)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func scalarText(v *yaml.Node) string {
	if v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return strings.TrimPrefix(kindName(v), "a ")
}

// ParseDuration reads a MAN-3 duration: an integer with an optional s, m, h
// or d suffix (bare = seconds).
func ParseDuration(s string) (time.Duration, error) {
	unit := time.Second
	num := s
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 's':
			num = s[:n-1]
		case 'm':
			unit, num = time.Minute, s[:n-1]
		case 'h':
			unit, num = time.Hour, s[:n-1]
		case 'd':
			unit, num = 24*time.Hour, s[:n-1]
		}
	}
	v, err := strconv.ParseUint(num, 10, 32)
	if err != nil || num == "" || num[0] == '+' {
		return 0, fmt.Errorf("'%s' is not a duration (an integer with an optional s, m, h or d suffix)", s)
	}
	return time.Duration(v) * unit, nil
}

// ParseSize reads a MAN-3 size: an integer with an optional Ki, Mi or Gi suffix.
func ParseSize(s string) (int64, error) {
	mult, num := int64(1), s
	for suf, m := range map[string]int64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30} {
		if strings.HasSuffix(s, suf) {
			mult, num = m, strings.TrimSuffix(s, suf)
		}
	}
	v, err := strconv.ParseUint(num, 10, 32)
	if err != nil || num == "" || num[0] == '+' {
		return 0, fmt.Errorf("'%s' is not a size (an integer with an optional Ki, Mi or Gi suffix)", s)
	}
	return int64(v) * mult, nil
}

func (l *loader) duration(dotted string, v *yaml.Node) (time.Duration, bool) {
	s, ok := l.str(dotted, v)
	if !ok {
		return 0, false
	}
	d, err := ParseDuration(s)
	if err != nil {
		l.invalid(dotted, "%v", err)
		return 0, false
	}
	return d, true
}

func (l *loader) size(dotted string, v *yaml.Node) (int64, bool) {
	s, ok := l.str(dotted, v)
	if !ok {
		return 0, false
	}
	n, err := ParseSize(s)
	if err != nil {
		l.invalid(dotted, "%v", err)
		return 0, false
	}
	return n, true
}
