package manifest

import (
	"strings"
	"testing"
)

func render(t *testing.T, yaml string, getenv func(string) string) string {
	t.Helper()
	_, warnings, err := Parse(file, []byte(yaml), getenv)
	if err != nil {
		t.Fatalf("Parse() error = %v", err)
	}
	var b strings.Builder
	for _, w := range warnings {
		b.WriteString(w.Render())
	}
	return b.String()
}

// TestLoadWarnings checks the warnings Load returns, byte for byte (MAN-2,
// MAN-10, STAGE-7, W-RUN-003).
func TestLoadWarnings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, yaml string
		getenv     func(string) string
		want       string
	}{
		{"MAN2_top_level_no_near", head + "observability: {}\n", nil,
			"warning[W-SEC-019]: /proj/murmur.yaml:5:1: unrecognized key 'observability' at the top level; it was parsed and ignored\n"},
		{"MAN2_top_level_near", head + "lifecyle: {}\n", nil,
			"warning[W-SEC-019]: /proj/murmur.yaml:5:1: unrecognized key 'lifecyle' at the top level — did you mean 'lifecycle'?; it was parsed and ignored\n"},
		{"MAN2_block_near", head + "capabilities: {shel: {allow: [bash]}}\n", nil,
			"warning[W-SEC-019]: /proj/murmur.yaml:5:16: unrecognized key 'shel' in capabilities — did you mean 'shell'?; it was parsed and ignored\n"},
		{"MAN2_nested_block", head + "artifacts: [{name: t, version: 1.0.0, confg: {}}]\n", nil,
			"warning[W-SEC-019]: /proj/murmur.yaml:5:39: unrecognized key 'confg' in artifacts[0] — did you mean 'config'?; it was parsed and ignored\n"},
		{"MAN2_driver_block", head + "  alternates: [{name: a, kind: scripted, script: s.yaml, modle: x}]\n", nil,
			"warning[W-SEC-019]: /proj/murmur.yaml:5:58: unrecognized key 'modle' in inference.alternates[0] — did you mean 'model'?; it was parsed and ignored\n"},
		{"MAN2_distance_three", head + "trace: {captures_all: meta}\n", nil,
			"warning[W-SEC-019]: /proj/murmur.yaml:5:9: unrecognized key 'captures_all' in trace; it was parsed and ignored\n"},
		{"MAN2_later_key", head + "capabilities: {limits: {cpu: 1}}\n", nil,
			"warning[W-SEC-019]: 'capabilities.limits' is not supported by this build; it was validated and ignored\n"},
		{"MAN2_later_validated", head + "exports: {files: {root: out, mode: read-only}}\n", nil,
			"warning[W-SEC-019]: 'exports.files' is not supported by this build; it was validated and ignored\n"},
		{"MAN2_threaded", head + "lifecycle: {conversation: threaded}\n", nil,
			"warning[W-SEC-019]: 'lifecycle.conversation' is not supported by this build; it was validated and ignored\n"},
		{"MAN2_stateless_is_silent", head + "lifecycle: {conversation: stateless}\n", nil, ""},
		{"MAN2_control_later", head + "control: {agent_settings: [inference.driver], surface: on}\n", nil,
			"warning[W-SEC-019]: 'control.surface' is not supported by this build; it was validated and ignored\n"},
		{"MAN2_artifact_source", head + "artifacts: [{name: s, version: 1.0.0, runtime: skill, source: ./s}]\n", nil,
			"warning[W-SEC-019]: 'artifacts[0].source' is not supported by this build; it was validated and ignored\n"},
		{"MAN5_artifact_fields_accepted", head + "runtime: capsule\nimplementation: native\nexecution: native\nrequires_files: [a.txt]\n", nil, ""},
		{"STAGE7_shell_shadow", head + "capabilities: {shell: {allow: [bash, call-member]}}\n", nil,
			"warning[W-SEC-019]: capabilities.shell.allow entry 'call-member' is ignored: the runtime provides a tool of that name\n"},
		{"DRV3_alternate_unset", head + "  alternates: [{name: local, kind: openai, model: 'qwen2.5-coder:7b', api_key: '${LOCAL_KEY}'}]\n", env(),
			"warning[W-RUN-003]: driver choice 'local' (openai, model qwen2.5-coder:7b) is unavailable: its credential LOCAL_KEY is not set, so a switch to it will be refused; the session runs on the primary\n"},
		{"DRV3_alternate_set", head + "  alternates: [{name: local, kind: openai, model: q, api_key: '${LOCAL_KEY}'}]\n", env("LOCAL_KEY", "k"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := render(t, c.yaml, c.getenv); got != c.want {
				t.Errorf("warnings =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// TestMurVersionWarning is capsule.md §1.2's mur_version pin.
func TestMurVersionWarning(t *testing.T) {
	t.Parallel()
	m, _, err := Parse(file, []byte(head+"mur_version: 1.0\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "warning[W-SEC-019]: this manifest pins mur 1.0, you are running 0.1.0\n"
	if d := m.MurVersionWarning("0.1.0"); d == nil || d.Render() != want {
		t.Errorf("MurVersionWarning(0.1.0) = %v, want %q", d, want)
	}
	if d := m.MurVersionWarning("1.0"); d != nil {
		t.Errorf("MurVersionWarning(1.0) = %q, want nil", d.Render())
	}
}

// TestGraceWarning is MAN-10's W-SEC-022.
func TestGraceWarning(t *testing.T) {
	t.Parallel()
	want := "warning[W-SEC-022]: lifecycle.shell_grace_secs is set, but this lifecycle cannot receive a background command's completion; declare lifecycle.task_acceptance: queue with lifecycle.after_task: sleep\n"
	cases := []struct {
		lifecycle string
		warn      bool
	}{
		{"{shell_grace_secs: 0}", true},
		{"{shell_grace_secs: 30, task_acceptance: queue}", true},
		{"{shell_grace_secs: 30, task_acceptance: queue, after_task: sleep}", false},
		{"{task_acceptance: single}", false},
	}
	for _, c := range cases {
		m, _, err := Parse(file, []byte(head+"lifecycle: "+c.lifecycle+"\n"), nil)
		if err != nil {
			t.Fatal(err)
		}
		d := m.Lifecycle.GraceWarning()
		switch {
		case c.warn && (d == nil || d.Render() != want):
			t.Errorf("lifecycle %s: GraceWarning() = %v, want %q", c.lifecycle, d, want)
		case !c.warn && d != nil:
			t.Errorf("lifecycle %s: GraceWarning() = %q, want nil", c.lifecycle, d.Render())
		}
	}
}
