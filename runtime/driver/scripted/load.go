package scripted

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/diag"
)

// Script is a validated DRV-7 script. It is immutable and safe for
// concurrent use.
type Script struct {
	Path     string    // the path it was loaded from, as given
	Rules    []Rule    // tried in order; the first match wins
	Fallback *Sequence // used when no rule matches; nil = none
}

// Rule is one `rules[]` entry: a match and its turns.
type Rule struct {
	Match Match
	Sequence
}

// Match is a rule's `match:` — exactly one of its forms is set.
type Match struct {
	Contains *string        // substring of the task text
	Regex    *regexp.Regexp // RE2, unanchored
	Always   bool           // matches every task
	// MessageIDPrefix matches a task whose starting A2A message's messageId
	// begins with it (the A2A TCK keys its scenarios so).
	MessageIDPrefix *string
}

// Sequence is the turns a rule (or the fallback) replays.
type Sequence struct {
	Repeat bool   // after the last turn, replay it forever
	Turns  []Turn // at least one
}

// Turn is one scripted reply. It holds Text and/or ToolCalls, or one of
// Error / Status.
type Turn struct {
	Text       *string    // template; nil = no text
	ToolCalls  []ToolCall // after Text
	StopReason string     // "" = tool_use with calls, else end_turn
	Usage      Usage
	DelayMS    int64   // waited first, cancellable
	Error      *string // driver_error with this reason
	Status     int     // 401 = credential rejection (DRV-4)
}

// ToolCall is one `tool_calls[]` entry.
type ToolCall struct {
	ID    string         // "" = call_<cursor>_<i>
	Name  string         // required
	Input map[string]any // JSON-ready; strings are templates
}

// Usage is a turn's reported token counts; nil = not reported.
type Usage struct {
	Input, Output, Cached, CacheWrite *int64
}

// Load reads and validates the script at path (DRV-7, MAN-4 step 9). An
// unreadable file is E-RUN-009; an invalid script is E-MAN-003
// `<path>: <key path>: <fault>`. Errors are *diag.Diagnostic.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, diag.RunUnreadable(path, osError(err)).WithErr(err)
	}
	return Parse(path, data)
}

// osError is the os error text without the "open <path>: " prefix.
func osError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Parse validates a script's bytes; path names it in diagnostics. Errors are
// *diag.Diagnostic E-MAN-003.
func Parse(path string, data []byte) (*Script, error) {
	l := &loader{path: path}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(&doc)
	switch {
	case errors.Is(err, io.EOF):
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	case err != nil:
		return nil, l.yamlError(err)
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, l.yamlError(err)
		}
		return nil, l.fault("document", "holds more than one YAML document")
	}
	return l.script(doc.Content[0])
}

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

func (l *loader) yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return l.fault("line "+m[1], m[2])
	}
	return l.fault("document", msg)
}

type loader struct{ path string }

func (l *loader) fault(keyPath, fault string) error { return diag.ManScript(l.path, keyPath, fault) }

// field is one key of a mapping, with its dotted path.
type field struct {
	path  string
	value *yaml.Node
}

// fields checks n is a mapping holding only known keys, no key twice, and no
// alias anywhere below it, and returns its non-null values by key.
func (l *loader) fields(path string, n *yaml.Node, known ...string) (map[string]field, error) {
	if n.Kind != yaml.MappingNode {
		return nil, l.fault(orDocument(path), "must be a mapping")
	}
	out := make(map[string]field, len(n.Content)/2)
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		kp := join(path, key)
		if k.Kind != yaml.ScalarNode {
			return nil, l.fault(orDocument(path), "keys must be strings")
		}
		if !contains(known, key) {
			return nil, l.fault(kp, "unknown key")
		}
		if seen[key] {
			return nil, l.fault(kp, "duplicate key")
		}
		seen[key] = true
		if v.Kind == yaml.AliasNode {
			return nil, l.fault(kp, aliasFault)
		}
		if isNull(v) {
			continue // MAN-3: a key with no value is an absent key
		}
		out[key] = field{path: kp, value: v}
	}
	return out, nil
}

// aliasFault refuses anchors' aliases: a script is small, and following them
// could expand a tiny file into a huge one.
const aliasFault = "aliases are not supported"

// orDocument names the top level "document" in a fault.
func orDocument(path string) string {
	if path == "" {
		return "document"
	}
	return path
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// str reads a string; an unquoted number reads as its source text (MAN-3).
func (l *loader) str(f field) (string, error) {
	n := f.value
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float") {
		return "", l.fault(f.path, "must be a string")
	}
	return n.Value, nil
}

func (l *loader) boolean(f field) (bool, error) {
	var b bool
	if f.value.Kind != yaml.ScalarNode || f.value.Tag != "!!bool" || f.value.Decode(&b) != nil {
		return false, l.fault(f.path, "must be true or false")
	}
	return b, nil
}

func (l *loader) integer(f field) (int64, error) {
	var n int64
	if f.value.Kind != yaml.ScalarNode || f.value.Tag != "!!int" || f.value.Decode(&n) != nil {
		return 0, l.fault(f.path, "must be an integer")
	}
	if n < 0 {
		return 0, l.fault(f.path, "must not be negative")
	}
	return n, nil
}

func (l *loader) list(f field) ([]*yaml.Node, error) {
	if f.value.Kind != yaml.SequenceNode {
		return nil, l.fault(f.path, "must be a list")
	}
	for i, item := range f.value.Content {
		if item.Kind == yaml.AliasNode {
			return nil, l.fault(fmt.Sprintf("%s[%d]", f.path, i), aliasFault)
		}
	}
	return f.value.Content, nil
}

func (l *loader) script(root *yaml.Node) (*Script, error) {
	fs, err := l.fields("", root, "script_version", "rules", "fallback")
	if err != nil {
		return nil, err
	}
	v, ok := fs["script_version"]
	if !ok {
		return nil, l.fault("script_version", "is required")
	}
	if n := v.value; n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return nil, l.fault("script_version", "must be an integer")
	} else if n.Value != "1" {
		return nil, l.fault("script_version", fmt.Sprintf("'%s' is not one of 1", n.Value))
	}
	s := &Script{Path: l.path}
	if f, ok := fs["rules"]; ok {
		items, err := l.list(f)
		if err != nil {
			return nil, err
		}
		for i, item := range items {
			r, err := l.rule(fmt.Sprintf("rules[%d]", i), item)
			if err != nil {
				return nil, err
			}
			s.Rules = append(s.Rules, r)
		}
	}
	if f, ok := fs["fallback"]; ok {
		seq, err := l.sequence(f.path, f.value, nil)
		if err != nil {
			return nil, err
		}
		s.Fallback = &seq
	}
	return s, nil
}

func (l *loader) rule(path string, n *yaml.Node) (Rule, error) {
	var r Rule
	fs, err := l.fields(path, n, "match", "repeat", "turns")
	if err != nil {
		return r, err
	}
	m, ok := fs["match"]
	if !ok {
		return r, l.fault(join(path, "match"), "is required")
	}
	if r.Match, err = l.match(m); err != nil {
		return r, err
	}
	r.Sequence, err = l.sequence(path, n, fs)
	return r, err
}

func (l *loader) match(f field) (Match, error) {
	var m Match
	fs, err := l.fields(f.path, f.value, "contains", "regex", "always", "message_id_prefix")
	if err != nil {
		return m, err
	}
	if len(fs) != 1 {
		return m, l.fault(f.path, "must hold exactly one of contains, regex, always, message_id_prefix")
	}
	if c, ok := fs["message_id_prefix"]; ok {
		s, err := l.str(c)
		if err != nil {
			return m, err
		}
		if s == "" {
			return m, l.fault(c.path, "must not be empty")
		}
		m.MessageIDPrefix = &s
	}
	if c, ok := fs["contains"]; ok {
		s, err := l.str(c)
		if err != nil {
			return m, err
		}
		m.Contains = &s
	}
	if c, ok := fs["regex"]; ok {
		s, err := l.str(c)
		if err != nil {
			return m, err
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return m, l.fault(c.path, "invalid regex: "+strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		m.Regex = re
	}
	if c, ok := fs["always"]; ok {
		b, err := l.boolean(c)
		if err != nil {
			return m, err
		}
		if !b {
			return m, l.fault(c.path, "must be true")
		}
		m.Always = true
	}
	return m, nil
}

// sequence reads repeat and turns from a rule's fields (fs) or, for the
// fallback (fs nil), from n itself.
func (l *loader) sequence(path string, n *yaml.Node, fs map[string]field) (Sequence, error) {
	var seq Sequence
	if fs == nil {
		var err error
		if fs, err = l.fields(path, n, "repeat", "turns"); err != nil {
			return seq, err
		}
	}
	if f, ok := fs["repeat"]; ok {
		b, err := l.boolean(f)
		if err != nil {
			return seq, err
		}
		seq.Repeat = b
	}
	f, ok := fs["turns"]
	if !ok {
		return seq, l.fault(join(path, "turns"), "is required")
	}
	items, err := l.list(f)
	if err != nil {
		return seq, err
	}
	if len(items) == 0 {
		return seq, l.fault(f.path, "must hold at least one turn")
	}
	for i, item := range items {
		t, err := l.turn(fmt.Sprintf("%s[%d]", f.path, i), item)
		if err != nil {
			return seq, err
		}
		seq.Turns = append(seq.Turns, t)
	}
	return seq, nil
}
