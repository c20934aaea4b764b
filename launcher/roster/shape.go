package roster

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
)

// The faults of E-ROS-001 (ROS-2; the texts are ours).
const (
	faultNoMembers   = "must list at least one member"
	faultNoCallees   = "must list at least one member"
	faultNotMapping  = "must be a mapping"
	faultNotList     = "must be a list"
	faultNotString   = "must be a string"
	faultNotBool     = "must be true or false"
	faultNotInteger  = "must be an integer"
	faultPinVersion  = "pin the version the member runs"
	memberNameSyntax = "^[a-z][a-z0-9-]{0,31}$"
)

var memberName = regexp.MustCompile(memberNameSyntax)

// mappings holds the keys each mapping of roster.yaml takes (ROS-2), by the
// mapping's path with "[]" for a list entry ("" is the top level), in the
// order E-ROS-001's unknown-key message lists them. fields reads its keys
// from here, so Keys lists exactly what parse accepts.
var mappings = map[string][]string{
	"":               {"roster_version", "members", "reachability", "cancel", "strict"},
	"members[]":      {"name", "capsule", "version", "entry"},
	"reachability[]": {"from", "to"},
}

// Keys returns every key roster.yaml takes, as dotted paths with "[]" for a
// list entry ("members[].name"), sorted: docs/roster.md is tested against
// it. The parent of every nested key is a key too.
func Keys() []string {
	var out []string
	for path, keys := range mappings {
		for _, k := range keys {
			out = append(out, join(path, k))
		}
	}
	sort.Strings(out)
	return out
}

// listIndex is a list entry's index in a key path ("members[2]").
var listIndex = regexp.MustCompile(`\[\d+\]`)

// ValidMemberName reports whether s is a member name (ROS-2).
func ValidMemberName(s string) bool { return memberName.MatchString(s) }

// parse decodes data into a Roster, checking the shape of ROS-2 in document
// order: the top level's unknown keys, roster_version, then each member's
// keys in roster order, then reachability.
func parse(data []byte) (*Roster, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, diag.RosMissingKey(1, 1, "roster_version", "")
		}
		return nil, yamlError(data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, diag.RosYAML(extra.Line, extra.Column, "the file holds more than one YAML document")
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(data, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if isNull(root) {
		return nil, diag.RosMissingKey(1, 1, "roster_version", "")
	}
	if root.Kind != yaml.MappingNode {
		return nil, diag.RosYAML(root.Line, root.Column, "the top level "+faultNotMapping)
	}
	top, err := fields(root, "", "")
	if err != nil {
		return nil, err
	}
	r := &Roster{}
	if err := checkVersion(root, top["roster_version"]); err != nil {
		return nil, err
	}
	if r.Members, err = parseMembers(root, top["members"]); err != nil {
		return nil, err
	}
	if r.All, r.Rules, err = parseReachability(top["reachability"]); err != nil {
		return nil, err
	}
	if r.Cancel, err = parseCancel(top["cancel"]); err != nil {
		return nil, err
	}
	if n := top["strict"]; !isNull(n) {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return nil, shape(n, "strict", "", faultNotBool)
		}
		r.Strict = strings.EqualFold(n.Value, "true")
	}
	return r, nil
}

// parseCancel reads cancel, one of: off (the default, also when
// absent) or cascade.
func parseCancel(n *yaml.Node) (string, error) {
	if isNull(n) {
		return CancelOff, nil
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", shape(n, "cancel", "", "must be off or cascade")
	}
	switch n.Value {
	case CancelOff, CancelCascade:
		return n.Value, nil
	}
	return "", shape(n, "cancel", "", fmt.Sprintf("'%s' is not one of off, cascade", n.Value))
}

// isNull reports whether n is absent or written with no value (ROS-3).
func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// yamlError turns a yaml.v3 syntax error into E-ROS-001 at its place
// (manifest.YAMLFault, as the manifest's E-MAN-002).
func yamlError(data []byte, err error) *diag.Diagnostic {
	line, col, msg := manifest.YAMLFault(data, err)
	return diag.RosYAML(line, col, msg).WithErr(err)
}

// fields returns the values of mapping m's keys, failing on an unknown or
// repeated key; the keys m takes are mappings' entry for path. path is m's
// key path ("" at the top level); member names the member m belongs to, if
// any.
func fields(m *yaml.Node, path, member string) (map[string]*yaml.Node, error) {
	known, ok := mappings[listIndex.ReplaceAllString(path, "[]")]
	if !ok {
		panic("roster: no key table for " + path) // a mapping parse reads must be in mappings
	}
	out := make(map[string]*yaml.Node, len(known))
	keys := make(map[string]*yaml.Node, len(known))
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn := m.Content[i]
		k := kn.Value
		kp := join(path, k)
		if !contains(known, k) {
			return nil, diag.RosUnknownKey(kn.Line, kn.Column, kp, member, diag.Nearest(k, known), known)
		}
		if first, dup := keys[k]; dup {
			return nil, diag.RosDuplicateKey(kn.Line, kn.Column, kp, member, first.Line)
		}
		keys[k] = kn
		out[k] = m.Content[i+1]
	}
	return out, nil
}

// shape is E-ROS-001 for value n at path.
func shape(n *yaml.Node, path, member, fault string) *diag.Diagnostic {
	return diag.RosShape(n.Line, n.Column, path, member, fault)
}

// missing is E-ROS-001 for key path absent from mapping parent.
func missing(parent *yaml.Node, path, member string) *diag.Diagnostic {
	return diag.RosMissingKey(parent.Line, parent.Column, path, member)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func checkVersion(root, n *yaml.Node) error {
	if isNull(n) {
		return missing(root, "roster_version", "")
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return shape(n, "roster_version", "", faultNotInteger)
	}
	if n.Value != "1" {
		return shape(n, "roster_version", "", fmt.Sprintf("'%s' is not supported; this mur reads roster_version 1", n.Value))
	}
	return nil
}

func parseMembers(root, n *yaml.Node) ([]Member, error) {
	if isNull(n) {
		return nil, missing(root, "members", "")
	}
	if n.Kind != yaml.SequenceNode {
		return nil, shape(n, "members", "", faultNotList)
	}
	if len(n.Content) == 0 {
		return nil, shape(n, "members", "", faultNoMembers)
	}
	if len(n.Content) > MaxMembers {
		return nil, diag.RosTooManyMembers(n.Line, n.Column, len(n.Content), MaxMembers)
	}
	ms := make([]Member, 0, len(n.Content))
	for i, e := range n.Content {
		m, err := parseMember(i, e)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

func parseMember(i int, n *yaml.Node) (Member, error) {
	path := fmt.Sprintf("members[%d]", i)
	if n.Kind != yaml.MappingNode {
		return Member{}, shape(n, path, "", faultNotMapping)
	}
	// The member's name labels its other faults (§15), once it is a name.
	label := ""
	for j := 0; j+1 < len(n.Content); j += 2 {
		if v := n.Content[j+1]; n.Content[j].Value == "name" && v.Kind == yaml.ScalarNode && ValidMemberName(v.Value) {
			label = v.Value
		}
	}
	f, err := fields(n, path, label)
	if err != nil {
		return Member{}, err
	}
	var m Member
	if m.Name, err = str(n, f["name"], path+".name", label); err != nil {
		return Member{}, err
	}
	if !ValidMemberName(m.Name) {
		return Member{}, shape(f["name"], path+".name", "", fmt.Sprintf("'%s' is not a member name: it must match %s", m.Name, memberNameSyntax))
	}
	if m.Capsule, err = str(n, f["capsule"], path+".capsule", label); err != nil {
		return Member{}, err
	}
	if why := manifest.NameProblem(m.Capsule); why != "" {
		return Member{}, shape(f["capsule"], path+".capsule", label, fmt.Sprintf("'%s' is not an artifact name: %s", m.Capsule, why))
	}
	if m.Version, err = versionText(n, f["version"], path+".version", label); err != nil {
		return Member{}, err
	}
	if e := f["entry"]; !isNull(e) {
		if e.Kind != yaml.ScalarNode || e.Tag != "!!bool" {
			return Member{}, shape(e, path+".entry", label, faultNotBool)
		}
		m.Entry = e.Value == "true"
	}
	return m, nil
}

// str reads a required string scalar of mapping parent.
func str(parent, n *yaml.Node, path, member string) (string, error) {
	if isNull(n) {
		return "", missing(parent, path, member)
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", shape(n, path, member, faultNotString)
	}
	return n.Value, nil
}

// versionText reads members[].version: a string, or an unquoted number read
// as its source text (ROS-2); never blank, a reserved alias or anything
// manifest.VersionProblem refuses.
func versionText(parent, n *yaml.Node, path, member string) (string, error) {
	if isNull(n) {
		return "", missing(parent, path, member)
	}
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float") {
		return "", shape(n, path, member, faultNotString)
	}
	v := n.Value
	switch {
	case strings.TrimSpace(v) == "":
		return "", shape(n, path, member, "the version is blank; "+faultPinVersion)
	case manifest.IsReservedVersion(v):
		return "", shape(n, path, member, fmt.Sprintf("'%s' is a reserved alias, not an exact version; %s", v, faultPinVersion))
	}
	// The version names the store directory the member runs from (BIND-1):
	// a path ("../../tmp/x") must never get that far.
	if why := manifest.VersionProblem(v); why != "" {
		return "", shape(n, path, member, fmt.Sprintf("'%s' is not a version: %s; %s", v, why, faultPinVersion))
	}
	return v, nil
}

func parseReachability(n *yaml.Node) (all bool, rules []Rule, err error) {
	if isNull(n) {
		return false, nil, nil
	}
	if n.Kind == yaml.ScalarNode {
		if n.Tag == "!!str" && n.Value == "all" {
			return true, nil, nil
		}
		return false, nil, shape(n, "reachability", "", fmt.Sprintf("'%s' is neither all nor a list of rules", n.Value))
	}
	if n.Kind != yaml.SequenceNode {
		return false, nil, shape(n, "reachability", "", "must be all or a list of rules")
	}
	for i, e := range n.Content {
		r, err := parseRule(i, e)
		if err != nil {
			return false, nil, err
		}
		rules = append(rules, r)
	}
	return false, rules, nil
}

func parseRule(i int, n *yaml.Node) (Rule, error) {
	path := fmt.Sprintf("reachability[%d]", i)
	if n.Kind != yaml.MappingNode {
		return Rule{}, shape(n, path, "", faultNotMapping)
	}
	f, err := fields(n, path, "")
	if err != nil {
		return Rule{}, err
	}
	var r Rule
	if r.From, err = str(n, f["from"], path+".from", ""); err != nil {
		return Rule{}, err
	}
	to := f["to"]
	if isNull(to) {
		return Rule{}, missing(n, path+".to", "")
	}
	if to.Kind != yaml.SequenceNode {
		return Rule{}, shape(to, path+".to", "", faultNotList)
	}
	if len(to.Content) == 0 {
		return Rule{}, shape(to, path+".to", "", faultNoCallees)
	}
	for j, e := range to.Content {
		p := fmt.Sprintf("%s.to[%d]", path, j)
		name, err := str(to, e, p, "")
		if err != nil {
			return Rule{}, err
		}
		if name == r.From {
			return Rule{}, diag.RosSelfCall(e.Line, e.Column, p, name)
		}
		r.To = append(r.To, name)
	}
	return r, nil
}
