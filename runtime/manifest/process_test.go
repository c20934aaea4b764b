package manifest

import (
	"reflect"
	"testing"

	"github.com/murmur-go/mur/runtime/diag"
)

// proc is the smallest valid harness capsule (process.md PROC-1, PROC-3).
const proc = `name: demo
version: "1.0.0"
capabilities: {env: {allow: [HOME, PATH]}}
inference:
  transport: process
`

// TestProcessKeys is PROC-1: the harness keys, their defaults, and that no
// driver is required (PROC-2: MAN-4 step 3's E-RUN-005 does not apply).
func TestProcessKeys(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, yaml                     string
		harness, command, model, hname string
	}{
		{"PROC1_defaults", proc, HarnessClaude, "claude", "", "claude-code"},
		{"PROC1_codex_by_command", proc + "  command: /opt/bin/codex\n", HarnessCodex, "/opt/bin/codex", "", "codex"},
		{"PROC1_claude_by_other_command", proc + "  command: ./bin/claude-wrapper\n", HarnessClaude, "./bin/claude-wrapper", "", "claude-code"},
		{"PROC1_harness_wins", proc + "  harness: codex\n  command: my-agent\n  model: gpt-x\n", HarnessCodex, "my-agent", "gpt-x", "codex"},
		{"PROC1_codex_default_command", proc + "  harness: codex\n", HarnessCodex, "codex", "", "codex"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, warns, err := Parse(file, []byte(c.yaml), nil)
			if err != nil {
				t.Fatalf("Parse() error = %v", err)
			}
			if len(warns) != 0 {
				t.Errorf("Parse() warnings = %v, want none", warns)
			}
			in := m.Inference
			if !in.Process() || in.Harness != c.harness || in.HarnessCommand() != c.command || in.Model != c.model || in.HarnessName() != c.hname {
				t.Errorf("inference = transport %q harness %q command %q model %q name %q, want process %q %q %q %q",
					in.Transport, in.Harness, in.HarnessCommand(), in.Model, in.HarnessName(), c.harness, c.command, c.model, c.hname)
			}
			if got := m.Capabilities.Env.Allow; !reflect.DeepEqual(got, []string{"HOME", "PATH"}) {
				t.Errorf("env.allow = %v", got)
			}
		})
	}
}

// TestProcessThreadedIsSilent: lifecycle.conversation: threaded acts under
// process (THR-1), so it does not warn as it does under http (MAN-2).
func TestProcessThreadedIsSilent(t *testing.T) {
	t.Parallel()
	m, warns, err := Parse(file, []byte(proc+"lifecycle: {conversation: threaded}\n"), nil)
	if err != nil || len(warns) != 0 || m.Lifecycle.Conversation != "threaded" {
		t.Fatalf("Parse() = %v, %v, %v; want threaded, no warning", m, warns, err)
	}
}

// TestProcessRefusals is PROC-2 and PROC-3's faults, each in its MAN-4 step.
func TestProcessRefusals(t *testing.T) {
	t.Parallel()
	const notRead = "is not read under inference.transport: process: the harness reaches its own model"
	cases := []struct{ name, yaml, want string }{
		{"PROC2_driver", proc + "  driver: {kind: scripted, script: s.yaml}\n",
			"error[E-MAN-003]: /proj/murmur.yaml:6:11: inference.driver: " + notRead + "\n  hint: correct inference.driver\n"},
		{"PROC2_alternates", proc + "  alternates: [{name: a, kind: scripted, script: s.yaml}]\n",
			"error[E-MAN-003]: /proj/murmur.yaml:6:15: inference.alternates: " + notRead + "\n  hint: correct inference.alternates\n"},
		{"PROC2_max_tokens", proc + "  max_tokens: 100\n",
			"error[E-MAN-003]: /proj/murmur.yaml:6:15: inference.max_tokens: " + notRead + "\n  hint: correct inference.max_tokens\n"},
		{"PROC2_max_session_tokens", proc + "  max_session_tokens: 100\n",
			"error[E-MAN-003]: /proj/murmur.yaml:6:23: inference.max_session_tokens: is not enforced under inference.transport: process: the harness reaches its provider with its own credentials, so mur measures no request\n  hint: correct inference.max_session_tokens\n"},
		{"PROC2_switch_driver", proc + "control: {agent_settings: [inference.driver]}\n",
			"error[E-MAN-003]: /proj/murmur.yaml:6:27: control.agent_settings: is not read under inference.transport: process: there is no driver choice to switch\n  hint: correct control.agent_settings\n"},
		{"PROC2_install", "name: demo\nversion: \"1.0.0\"\ncapabilities: {env: {allow: [HOME, PATH]}, install: {tool: [murmur/*]}}\ninference: {transport: process}\n",
			"error[E-MAN-003]: /proj/murmur.yaml:3:53: capabilities.install: is refused under inference.transport: process: the harness owns its tool list, so nothing can be pulled into it\n  hint: correct capabilities.install\n"},
		{"PROC2_command_under_http", head + "  command: claude\n",
			"error[E-MAN-003]: /proj/murmur.yaml:5:12: inference.command: is read only under inference.transport: process\n  hint: correct inference.command\n"},
		{"PROC2_harness_under_http", head + "  harness: claude\n",
			"error[E-MAN-003]: /proj/murmur.yaml:5:12: inference.harness: is read only under inference.transport: process\n  hint: correct inference.harness\n"},
		{"PROC2_model_under_http", head + "  model: gpt\n",
			"error[E-MAN-003]: /proj/murmur.yaml:5:10: inference.model was removed; set inference.driver.model instead\n  hint: correct inference.model\n"},
		{"PROC1_harness_value", proc + "  harness: gemini\n",
			"error[E-MAN-003]: /proj/murmur.yaml:6:12: inference.harness: 'gemini' is not one of claude, codex\n  hint: correct inference.harness\n"},
		{"PROC1_command_empty", proc + "  command: ''\n",
			"error[E-MAN-003]: /proj/murmur.yaml:6:12: inference.command: must not be empty\n  hint: correct inference.command\n"},
		{"PROC3_bad_name", "name: demo\nversion: \"1.0.0\"\ncapabilities: {env: {allow: [HOME, 'MY-VAR']}}\ninference: {transport: process}\n",
			"error[E-MAN-003]: /proj/murmur.yaml:3:36: capabilities.env.allow[1]: 'MY-VAR' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)\n  hint: correct capabilities.env.allow[1]\n"},
		{"PROC3_backstop", "name: demo\nversion: \"1.0.0\"\ncapabilities: {env: {allow: [HOME, ANTHROPIC_API_KEY, PATH, GH_TOKEN, ANTHROPIC_API_KEY, MURMUR_FORMATION_X]}}\ninference: {transport: process}\n",
			"error[E-CAP-016]: capabilities.env.allow names 'ANTHROPIC_API_KEY' (credential backstop pattern '*_API_KEY'), 'GH_TOKEN' (credential backstop pattern '*_TOKEN'), 'MURMUR_FORMATION_X' (credential backstop pattern 'MURMUR_FORMATION_*'); these entries are removed from every environment the runtime builds, so the grant would deliver nothing\n" +
				"  hint: remove these entries from capabilities.env.allow. No manifest setting exempts a name from the credential backstop; a harness signs in with its own login under HOME\n"},
		{"PROC3_strip_env", "name: demo\nversion: \"1.0.0\"\ncapabilities: {shell: {allow: [bash], strip_env: ['CLAUDE_*'], baseline_env: ['CLAUDE_*']}, env: {allow: [HOME, PATH, CLAUDE_CONFIG_DIR]}}\ninference: {transport: process}\n",
			"error[E-CAP-016]: capabilities.env.allow names 'CLAUDE_CONFIG_DIR' (capabilities.shell.strip_env pattern 'CLAUDE_*'); these entries are removed from every environment the runtime builds, so the grant would deliver nothing\n" +
				"  hint: remove these entries from capabilities.env.allow. No manifest setting exempts a name from the credential backstop; a harness signs in with its own login under HOME\n"},
		{"PROC3_backstop_under_http", head + "capabilities: {env: {allow: [OPENAI_API_KEY]}}\n",
			"error[E-CAP-016]: capabilities.env.allow names 'OPENAI_API_KEY' (credential backstop pattern '*_API_KEY'); these entries are removed from every environment the runtime builds, so the grant would deliver nothing\n" +
				"  hint: remove these entries from capabilities.env.allow. No manifest setting exempts a name from the credential backstop; a harness signs in with its own login under HOME\n"},
		{"PROC3_required", "name: demo\nversion: \"1.0.0\"\ninference: {transport: process, harness: codex}\n",
			"error[E-CAP-019]: the codex harness requires HOME, PATH in its environment, which capabilities.env.allow does not declare\n  hint: add each variable to capabilities.env.allow — the harness sees only variables the manifest declares\n"},
		{"PROC3_required_one", "name: demo\nversion: \"1.0.0\"\ncapabilities: {env: {allow: [PATH]}}\ninference: {transport: process}\n",
			"error[E-CAP-019]: the claude-code harness requires HOME in its environment, which capabilities.env.allow does not declare\n  hint: add each variable to capabilities.env.allow — the harness sees only variables the manifest declares\n"},
		// PROC-4: E-CAP-016 before E-CAP-019, both after step 4's faults.
		{"PROC4_order_016_before_019", "name: demo\nversion: \"1.0.0\"\ncapabilities: {env: {allow: [A_SECRET]}}\ninference: {transport: process}\n",
			"error[E-CAP-016]: capabilities.env.allow names 'A_SECRET' (credential backstop pattern '*_SECRET'); these entries are removed from every environment the runtime builds, so the grant would deliver nothing\n" +
				"  hint: remove these entries from capabilities.env.allow. No manifest setting exempts a name from the credential backstop; a harness signs in with its own login under HOME\n"},
		{"PROC4_order_fault_before_cap", "name: demo\nversion: \"1.0.0\"\ninference: {transport: process, max_tokens: 5}\n",
			"error[E-MAN-003]: /proj/murmur.yaml:3:45: inference.max_tokens: " + notRead + "\n  hint: correct inference.max_tokens\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, _, err := Parse(file, []byte(c.yaml), nil)
			d, ok := diag.As(err)
			if !ok {
				t.Fatalf("Parse() = %v, %v; want %q", m, err, c.want)
			}
			if got := d.Render(); got != c.want {
				t.Errorf("Parse() error =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// TestEnvAllowUnderHTTP: under http env.allow is validated, then ignored
// with W-SEC-019 unless delegation could use it (PROC-3).
func TestEnvAllowUnderHTTP(t *testing.T) {
	t.Parallel()
	got := render(t, head+"capabilities: {env: {allow: [HOME]}}\n", nil)
	want := "warning[W-SEC-019]: 'capabilities.env.allow' is not supported by this build; it was validated and ignored\n"
	if got != want {
		t.Errorf("warnings = %q, want %q", got, want)
	}
}
