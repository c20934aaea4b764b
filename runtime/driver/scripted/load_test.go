package scripted

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
)

// invalidScripts are DRV-7's refusals: unknown key, wrong type, bad regex,
// empty turn, unknown template, and the rest of the format's rules.
var invalidScripts = []struct{ name, src string }{
	{"not a mapping", "- 1\n"},
	{"syntax", "script_version: 1\nrules: [\n"},
	{"two documents", "script_version: 1\n---\nscript_version: 1\n"},
	{"missing version", "rules: []\n"},
	{"empty file", ""},
	{"version 2", "script_version: 2\n"},
	{"version string", "script_version: \"1\"\n"},
	{"unknown top key", "script_version: 1\nrule: []\n"},
	{"duplicate key", "script_version: 1\nscript_version: 1\n"},
	{"rules not a list", "script_version: 1\nrules: {}\n"},
	{"rule not a mapping", "script_version: 1\nrules: [x]\n"},
	{"match missing", "script_version: 1\nrules:\n  - turns: [{text: a}]\n"},
	{"match two forms", "script_version: 1\nrules:\n  - match: {contains: a, always: true}\n    turns: [{text: a}]\n"},
	{"match none", "script_version: 1\nrules:\n  - match: {}\n    turns: [{text: a}]\n"},
	{"match unknown key", "script_version: 1\nrules:\n  - match: {prefix: a}\n    turns: [{text: a}]\n"},
	{"bad regex", "script_version: 1\nrules:\n  - match: {regex: \"a(b\"}\n    turns: [{text: a}]\n"},
	{"always false", "script_version: 1\nrules:\n  - match: {always: false}\n    turns: [{text: a}]\n"},
	{"always string", "script_version: 1\nrules:\n  - match: {always: \"yes\"}\n    turns: [{text: a}]\n"},
	{"contains list", "script_version: 1\nrules:\n  - match: {contains: [a]}\n    turns: [{text: a}]\n"},
	{"repeat string", "script_version: 1\nrules:\n  - match: {always: true}\n    repeat: sometimes\n    turns: [{text: a}]\n"},
	{"turns missing", "script_version: 1\nrules:\n  - match: {always: true}\n"},
	{"turns empty", "script_version: 1\nfallback: {turns: []}\n"},
	{"fallback not a mapping", "script_version: 1\nfallback: [1]\n"},
	{"fallback unknown key", "script_version: 1\nfallback: {match: {always: true}, turns: [{text: a}]}\n"},
	{"empty turn", "script_version: 1\nfallback:\n  turns:\n    - text: a\n    - {stop_reason: end_turn}\n"},
	{"null text only", "script_version: 1\nfallback:\n  turns:\n    - text:\n"},
	{"text and error", "script_version: 1\nfallback:\n  turns: [{text: a, error: b}]\n"},
	{"error and status", "script_version: 1\nfallback:\n  turns: [{error: b, status: 401}]\n"},
	{"empty error", "script_version: 1\nfallback:\n  turns: [{error: \"\"}]\n"},
	{"status 500", "script_version: 1\nfallback:\n  turns: [{status: 500}]\n"},
	{"unknown turn key", "script_version: 1\nfallback:\n  turns: [{txt: a}]\n"},
	{"text mapping", "script_version: 1\nfallback:\n  turns: [{text: {a: 1}}]\n"},
	{"text bool", "script_version: 1\nfallback:\n  turns: [{text: true}]\n"},
	{"unknown template", "script_version: 1\nfallback:\n  turns: [{text: \"hi {{name}}\"}]\n"},
	{"spaced template", "script_version: 1\nfallback:\n  turns: [{text: \"hi {{ task }}\"}]\n"},
	{"bad member template", "script_version: 1\nfallback:\n  turns: [{text: \"{{member_answer:Bad Name}}\"}]\n"},
	{"template in input", "script_version: 1\nfallback:\n  turns: [{tool_calls: [{name: bash, input: {command: [\"{{result}}\"]}}]}]\n"},
	{"tool_calls not a list", "script_version: 1\nfallback:\n  turns: [{tool_calls: {name: bash}}]\n"},
	{"tool call name missing", "script_version: 1\nfallback:\n  turns: [{tool_calls: [{input: {}}]}]\n"},
	{"tool call name empty", "script_version: 1\nfallback:\n  turns: [{tool_calls: [{name: \"\"}]}]\n"},
	{"tool call unknown key", "script_version: 1\nfallback:\n  turns: [{tool_calls: [{name: bash, args: {}}]}]\n"},
	{"tool call input list", "script_version: 1\nfallback:\n  turns: [{tool_calls: [{name: bash, input: [1]}]}]\n"},
	{"input duplicate key", "script_version: 1\nfallback:\n  turns: [{tool_calls: [{name: bash, input: {a: 1, a: 2}}]}]\n"},
	{"input infinity", "script_version: 1\nfallback:\n  turns: [{tool_calls: [{name: bash, input: {a: .inf}}]}]\n"},
	{"usage unknown key", "script_version: 1\nfallback:\n  turns: [{text: a, usage: {prompt: 1}}]\n"},
	{"usage negative", "script_version: 1\nfallback:\n  turns: [{text: a, usage: {input: -1}}]\n"},
	{"usage float", "script_version: 1\nfallback:\n  turns: [{text: a, usage: {output: 1.5}}]\n"},
	{"delay string", "script_version: 1\nfallback:\n  turns: [{text: a, delay_ms: soon}]\n"},
	{"alias", "script_version: 1\nfallback:\n  turns:\n    - &t {text: a}\n    - *t\n"},
	{"alias in input", "script_version: 1\nfallback:\n  turns: [{tool_calls: [{name: a, input: {x: &v 1, y: *v}}]}]\n"},
	{"alias value", "script_version: 1\nfallback: {turns: [{text: &v a}], repeat: *v}\n"},
	{"stop_reason list", "script_version: 1\nfallback:\n  turns: [{text: a, stop_reason: [x]}]\n"},
}

// TestParseInvalid pins each refusal's E-MAN-003 text (DRV-7, MAN-4 step 9).
func TestParseInvalid(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, tt := range invalidScripts {
		s, err := Parse("capsule/script.yaml", []byte(tt.src))
		if err == nil {
			t.Errorf("%s: Parse() = %+v, want an error", tt.name, s)
			continue
		}
		d, ok := diag.As(err)
		if !ok || d.Code != "E-MAN-003" {
			t.Errorf("%s: Parse() error = %v, want E-MAN-003", tt.name, err)
			continue
		}
		b.WriteString("# " + tt.name + "\n" + d.Render())
	}
	golden.Check(t, "invalid", b.String())
}

// TestParseValid accepts the forms DRV-7 allows.
func TestParseValid(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"version only":       "script_version: 1\n",
		"null keys absent":   "script_version: 1\nrules:\nfallback:\n",
		"number as text":     "script_version: 1\nfallback: {turns: [{text: 1.10}]}\n",
		"error with delay":   "script_version: 1\nfallback: {turns: [{error: boom, delay_ms: 5}]}\n",
		"member template":    "script_version: 1\nfallback: {turns: [{text: \"{{member_answer:code-reviewer}}\"}]}\n",
		"empty tool_calls +": "script_version: 1\nfallback: {turns: [{text: a, tool_calls: []}]}\n",
		"literal braces":     "script_version: 1\nfallback: {turns: [{text: \"{ {task} } {{\"}]}\n",
	} {
		if _, err := Parse("s.yaml", []byte(src)); err != nil {
			t.Errorf("%s: Parse() error = %v", name, err)
		}
	}
	s, err := Parse("s.yaml", []byte("script_version: 1\nfallback: {turns: [{text: 1.10}]}\n"))
	if err != nil || *s.Fallback.Turns[0].Text != "1.10" {
		t.Errorf("number text = %v, %v", s, err)
	}
}

// TestLoadUnreadable checks E-RUN-009 (DRV-7, MAN-4 step 9).
func TestLoadUnreadable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "missing.yaml")
	_, err := Load(path)
	d, ok := diag.As(err)
	if !ok || d.Code != "E-RUN-009" {
		t.Fatalf("Load(missing) error = %v, want E-RUN-009", err)
	}
	if want := path + " could not be read: no such file or directory"; d.Msg != want {
		t.Errorf("Load(missing) = %q, want %q", d.Msg, want)
	}
	if !os.IsNotExist(err) && !strings.Contains(err.Error(), "no such file") {
		t.Errorf("cause lost: %v", err)
	}
	dir := t.TempDir()
	_, err = Load(dir)
	if d, ok := diag.As(err); !ok || d.Msg != dir+" could not be read: is a directory" {
		t.Errorf("Load(dir) error = %v", err)
	}
}

// FuzzParse: any bytes give a script or an E-MAN-003, never a panic.
func FuzzParse(f *testing.F) {
	for _, tt := range invalidScripts {
		f.Add([]byte(tt.src))
	}
	if ex, err := os.ReadFile(filepath.Join("testdata", "example.yaml")); err == nil {
		f.Add(ex)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.yaml", data)
		if err != nil {
			if !diag.Is(err, "E-MAN-003") {
				t.Fatalf("Parse() error = %v, want E-MAN-003", err)
			}
			return
		}
		if s == nil {
			t.Fatal("Parse() = nil, nil")
		}
	})
}
