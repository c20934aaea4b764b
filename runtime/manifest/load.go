package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/diag"
)

// FileName is the manifest's file name in a capsule or artifact directory.
const FileName = "murmur.yaml"

// Load reads the capsule manifest at path for `mur run` and `mur doctor`,
// validating it in MAN-4's order, steps (1)–(7), and stopping at the first
// fault: E-IO-001, E-MAN-002, E-MAN-001/E-RUN-005, E-MAN-003/E-CAP-010,
// E-CAP-001/002/012/007/008/018, E-CAP-013, then credential references.
// getenv is the environment after .env (LoadDotEnv); nil reads nothing.
//
// The error is always a *diag.Diagnostic. warnings holds, in order, the
// W-SEC-019 lines (unknown keys with "did you mean", LATER keys, a
// shell.allow entry named like a runtime-provided tool) and one W-RUN-003 per
// alternate whose credential is unset; on error it holds those found so far.
// Load does not return the warnings that depend on run-time inputs:
// MurVersionWarning (W-SEC-019), Lifecycle.GraceWarning (W-SEC-022, after
// overrides), W-SEC-032 (--bind) and W-RUN-008 (formations). Exports roots
// are checked against the manifest's directory; CheckExports re-checks them
// for another workdir. Steps (8)–(10) belong to the caller (runtime/store
// CheckArtifacts, the prompt and script files, the door).
func Load(path string, getenv func(string) string) (*Manifest, []*diag.Diagnostic, error) {
	return LoadContext(context.Background(), path, getenv)
}

// LoadContext is Load whose read of path ends once ctx does (a FIFO that
// never closes), with context.Cause(ctx) as the error.
func LoadContext(ctx context.Context, path string, getenv func(string) string) (*Manifest, []*diag.Diagnostic, error) {
	data, err := readFile(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	return Parse(path, data, getenv)
}

// Parse is Load for bytes already read; file names the manifest in
// diagnostics and its directory roots relative paths.
func Parse(file string, data []byte, getenv func(string) string) (*Manifest, []*diag.Diagnostic, error) {
	l, err := decodeDoc(file, data, false)
	if err != nil {
		return nil, l.warns, err
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	for _, step := range []func() *diag.Diagnostic{l.step3, l.step4, l.step5, l.step6, func() *diag.Diagnostic { return l.step7(getenv) }} {
		if d := step(); d != nil {
			return nil, l.warns, d
		}
	}
	return l.m, l.warns, nil
}

// LoadGrants reads an installed capsule's murmur.yaml for a delegation's
// referee (tools.md DLG-2): MAN-4 steps 1–6, so its capabilities are parsed
// as its own launch parses them, but no environment is read (step 7, the
// credential references, belongs to that launch). The error is a
// *diag.Diagnostic.
func LoadGrants(path string) (*Manifest, error) {
	data, err := readFile(context.Background(), path)
	if err != nil {
		return nil, err
	}
	l, err := decodeDoc(path, data, false)
	if err != nil {
		return nil, err
	}
	for _, step := range []func() *diag.Diagnostic{l.step3, l.step4, l.step5, l.step6} {
		if d := step(); d != nil {
			return nil, d
		}
	}
	return l.m, nil
}

// LoadArtifact reads <dir>/murmur.yaml as an artifact about to be installed
// or staged (capsule.md CLI-6, STORE-1): E-IO-001, E-MAN-002, E-MAN-001,
// E-BLD-001 for a malformed name, E-REG-004 for a reserved version, then the
// E-MAN-003/E-CAP-010 rules. runtime must be capsule (or absent), tool or
// skill; a tool is a native executable with a command inside dir (an
// input_schema defaults to {"type":"object"}); a skill holds skill.md
// (E-IO-001). A capsule's inference block is optional here and no
// environment is read. The error is always a *diag.Diagnostic.
func LoadArtifact(dir string) (*Manifest, []*diag.Diagnostic, error) {
	path := filepath.Join(dir, FileName)
	data, err := readFile(context.Background(), path)
	if err != nil {
		return nil, nil, err
	}
	l, err := decodeDoc(path, data, true)
	if err != nil {
		return nil, l.warns, err
	}
	if d := l.artifactIdentity(); d != nil {
		return nil, l.warns, d
	}
	if d := l.step3(); d != nil {
		return nil, l.warns, d
	}
	if d := l.step4(); d != nil {
		return nil, l.warns, d
	}
	if d := l.artifactKind(dir); d != nil {
		return nil, l.warns, d
	}
	return l.m, l.warns, nil
}

// MaxFileBytes is the largest murmur.yaml this build reads:
// a larger one is refused E-MAN-004 before it is parsed.
const MaxFileBytes = 1 << 20

// readFile reads at most MaxFileBytes of path (MAN-4 step 1): E-MAN-004
// over it, E-IO-001 when it cannot be read, ctx's cause once ctx ends.
func readFile(ctx context.Context, path string) ([]byte, error) {
	data, err := ReadBounded(ctx, path, MaxFileBytes)
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, ErrTooLarge):
		return nil, diag.ManTooLarge(path, MaxFileBytes)
	case ctx.Err() != nil:
		return nil, err
	case errors.Is(err, fs.ErrNotExist):
		return nil, diag.IONotFound(path).WithErr(err)
	}
	return nil, diag.IOError(path, osErrText(err)).WithErr(err)
}

// osErrText is an *fs.PathError's bare OS text ("permission denied").
func osErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// decodeDoc runs MAN-4 step (2) and the decode walk. The loader is never nil.
func decodeDoc(file string, data []byte, artifactMode bool) (*loader, error) {
	dir, _ := filepath.Abs(filepath.Dir(file))
	l := &loader{file: file, m: &Manifest{Path: file, Dir: dir}, set: map[string]bool{}}
	root, err := parseYAML(file, data)
	if err != nil {
		return l, err
	}
	if root != nil {
		l.top(root, artifactMode)
	} else {
		l.mapping("", &yaml.Node{Kind: yaml.MappingNode}, nil, "name", "version")
		if !artifactMode {
			l.miss = append(l.miss, diag.RunNoInference(file))
		}
	}
	applyDefaults(l.m, l.present)
	return l, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML parses one YAML document into its root node (nil when empty):
// E-MAN-002 with line and column for a syntax error, a duplicate key, a
// non-scalar key, a second document or a root that is not a mapping.
func parseYAML(file string, data []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil { // yaml.v3 must never take the process down
			root, err = nil, diag.ManYAML(file, 1, 1, fmt.Sprint(r))
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, yamlDiag(file, data, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, diag.ManYAML(file, max(next.Line, 1), max(next.Column, 1), "the file holds more than one YAML document")
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlDiag(file, data, err)
	}
	n := resolve(&doc)
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, diag.ManYAML(file, n.Line, n.Column, "the document must be a mapping of keys to values, not "+kindName(n))
	}
	if d := checkKeys(file, n, 0); d != nil {
		return nil, d
	}
	return n, nil
}

// misindented returns the first line, at or below from (1-based), whose
// indentation is deeper than the key above it without that key opening a
// block, or shallower than it without matching an enclosing key's, and its
// column; 0 when every line fits. Blank lines, comments and list items are
// skipped.
func misindented(lines []string, from int) (int, int) {
	var levels []int // the indentation of each open key, outermost first
	opens := false   // the last key's line ends with ":", so a deeper line may follow
	bad := func(i, ind int) (int, int) {
		if i+1 < from { // above the mapping yaml.v3 names: not what it refused
			return 0, 0
		}
		return i + 1, ind + 1
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimLeft(l, " ")
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "- ") || t == "-" {
			continue
		}
		ind := len(l) - len(t)
		switch {
		case len(levels) == 0 || ind > levels[len(levels)-1]:
			if len(levels) > 0 && !opens {
				return bad(i, ind)
			}
			levels = append(levels, ind)
		default:
			for len(levels) > 0 && levels[len(levels)-1] > ind {
				levels = levels[:len(levels)-1]
			}
			if len(levels) == 0 || levels[len(levels)-1] != ind {
				return bad(i, ind)
			}
		}
		body, _, _ := strings.Cut(t, " #")
		opens = strings.HasSuffix(strings.TrimSpace(body), ":")
	}
	return 0, 0
}

// notAnEntry returns the first line below the list item at line from
// (1-based) that is indented as the list's items are but is not one, and
// its column; 0 when there is none before the list ends.
func notAnEntry(lines []string, from int) (int, int) {
	if from < 1 || from > len(lines) {
		return 0, 0
	}
	first := lines[from-1]
	ind := len(first) - len(strings.TrimLeft(first, " "))
	if !strings.HasPrefix(first[ind:], "-") {
		return 0, 0
	}
	for i := from; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " ")
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		switch at := len(lines[i]) - len(t); {
		case at < ind:
			return 0, 0
		case at == ind && !strings.HasPrefix(t, "-"):
			return i + 1, at + 1
		}
	}
	return 0, 0
}

// yamlDiag turns a yaml.v3 error into E-MAN-002 at YAMLFault's place.
func yamlDiag(file string, data []byte, err error) *diag.Diagnostic {
	line, col, msg := YAMLFault(data, err)
	return diag.ManYAML(file, line, col, msg).WithErr(err)
}

// YAMLFault is where a yaml.v3 syntax error in data is, and what it says,
// for a manifest and a roster alike. yaml.v3 reports a line only, and for a
// parser error the line (counted from 0) where the mapping, list or flow it
// was reading began; the fault is then found below it: a line indented to
// no level of the keys above it, a line at a list's indentation that is not
// an entry, a bracket nothing closes. Otherwise the column is the line's
// first non-blank character.
func YAMLFault(data []byte, err error) (line, col int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	line = 1
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	lines := strings.Split(string(data), "\n")
	if strings.HasPrefix(msg, "did not find expected ") {
		line++
	}
	switch msg {
	case "did not find expected key", "did not find expected '-' indicator":
		if bad, at := misindented(lines, line); bad > 0 {
			return bad, at, "this line is indented to no level of the keys above it"
		}
		if bad, at := notAnEntry(lines, line); bad > 0 {
			return bad, at, "this line is at the indentation of the list above it but is not an entry ('- ')"
		}
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'":
		open := "["
		if strings.HasSuffix(msg, "'}'") {
			open = "{"
		}
		// yaml.v3 names the line of the bracket, or past the end the line
		// it stopped at: the nearest bracket at or above it.
		for l := min(line, len(lines)); l >= 1; l-- {
			if i := strings.LastIndex(lines[l-1], open); i >= 0 {
				return l, i + 1, fmt.Sprintf("this '%s' is never closed (%s)", open, msg)
			}
		}
	}
	col = 1
	if line >= 1 && line <= len(lines) {
		col = len(lines[line-1]) - len(strings.TrimLeft(lines[line-1], " \t")) + 1
	}
	return line, col, msg
}

// checkKeys refuses duplicate and non-scalar mapping keys (yaml.v3 leaves
// both to struct decoding, which MAN-1 replaces). depth bounds alias chains.
func checkKeys(file string, n *yaml.Node, depth int) *diag.Diagnostic {
	if n == nil || depth > 200 {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if rk := resolve(k); rk.Kind != yaml.ScalarNode {
				return diag.ManYAML(file, k.Line, k.Column, "a mapping key must be a plain value")
			} else if rk.Tag != "!!merge" {
				if prev, ok := seen[rk.Value]; ok {
					return diag.ManYAML(file, k.Line, k.Column, fmt.Sprintf("mapping key %q already defined at line %d", rk.Value, prev.Line))
				}
				seen[rk.Value] = k
			}
			if d := checkKeys(file, n.Content[i+1], depth+1); d != nil {
				return d
			}
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, c := range n.Content {
			if d := checkKeys(file, c, depth+1); d != nil {
				return d
			}
		}
	}
	return nil
}

var yamlTypeLine = regexp.MustCompile(`line (\d+): (.*)`)

// DecodeYAML decodes one YAML document from data into v (yaml.v3 rules) for
// the machine-written files next to a manifest (murmur.lock). A syntax or
// type error is E-MAN-002 naming file, line and column; an empty document
// leaves v unchanged.
func DecodeYAML(file string, data []byte, v any) error {
	root, err := parseYAML(file, data)
	if err != nil || root == nil {
		return err
	}
	if err := root.Decode(v); err != nil {
		line, msg := 1, err.Error()
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			msg = te.Errors[0]
			if m := yamlTypeLine.FindStringSubmatch(msg); m != nil {
				line, _ = strconv.Atoi(m[1])
				msg = m[2]
			}
		}
		return yamlDiag(file, data, fmt.Errorf("yaml: line %d: %s", line, msg))
	}
	return nil
}
