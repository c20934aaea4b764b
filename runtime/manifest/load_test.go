package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/diag"
)

// file is the manifest path the table tests parse under: messages name it
// and E-CAP-007 resolves export roots against its directory.
const file = "/proj/murmur.yaml"

// head is the smallest valid capsule; cases append blocks to it.
const head = `name: demo
version: "1.0.0"
inference:
  driver: {kind: scripted, script: script.yaml}
`

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// TestLoadErrors checks every diagnostic Load refuses with, byte for byte
// (spec README.md "Diagnostic codes"; capsule.md MAN-1..MAN-9).
func TestLoadErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, yaml string
		getenv     func(string) string
		want       string
	}{
		// MAN-1 / E-MAN-002
		{"MAN1_syntax", "name: demo\nversion: [1\n", nil,
			"error[E-MAN-002]: /proj/murmur.yaml:2:10: this '[' is never closed (did not find expected ',' or ']')\n  hint: fix the YAML at line 2\n"},
		{"MAN1_tab_indent", "name: demo\n\tversion: 1\n", nil,
			"error[E-MAN-002]: /proj/murmur.yaml:2:2: found a tab character that violates indentation\n  hint: fix the YAML at line 2\n"},
		{"MAN1_mapping_value", "name: demo\nversion: 1\n  extra: x\n", nil,
			"error[E-MAN-002]: /proj/murmur.yaml:3:3: mapping values are not allowed in this context\n  hint: fix the YAML at line 3\n"},
		{"MAN1_control_character", "name: a\x01b\n", nil,
			"error[E-MAN-002]: /proj/murmur.yaml:1:1: control characters are not allowed\n  hint: fix the YAML at line 1\n"},
		{"MAN1_duplicate_key", head + "name: other\n", nil,
			"error[E-MAN-002]: /proj/murmur.yaml:5:1: mapping key \"name\" already defined at line 1\n  hint: fix the YAML at line 5\n"},
		{"MAN1_two_documents", head + "---\nname: x\n", nil,
			"error[E-MAN-002]: /proj/murmur.yaml:5:1: the file holds more than one YAML document\n  hint: fix the YAML at line 5\n"},
		{"MAN1_root_list", "- a\n- b\n", nil,
			"error[E-MAN-002]: /proj/murmur.yaml:1:1: the document must be a mapping of keys to values, not a list\n  hint: fix the YAML at line 1\n"},
		// MAN-4 step 3: E-MAN-001, E-RUN-005
		{"MAN4_missing_name", "version: 1.0.0\n", nil,
			"error[E-MAN-001]: /proj/murmur.yaml: missing required key 'name'\n  hint: add name to /proj/murmur.yaml\n"},
		{"MAN4_missing_near", "name: demo\nversion: 1.0.0\ninference:\n  driver:\n    kind: scripted\n    scrpt: s.yaml\n", nil,
			"error[E-MAN-001]: /proj/murmur.yaml:6:5: missing required key 'inference.driver.script'; it holds 'scrpt' — did you mean 'script'?\n  hint: rename scrpt to script in /proj/murmur.yaml\n"},
		{"MAN4_missing_near_alternate", "name: demo\nversion: 1.0.0\ninference:\n  driver: {kind: scripted, script: s.yaml}\n  alternates: [{name: b, knd: scripted}]\n", nil,
			"error[E-MAN-001]: /proj/murmur.yaml:5:26: missing required key 'inference.alternates[0].kind'; it holds 'knd' — did you mean 'kind'?\n  hint: rename knd to kind in /proj/murmur.yaml\n"},
		{"MAN4_empty_file", "", nil,
			"error[E-MAN-001]: /proj/murmur.yaml: missing required key 'name'\n  hint: add name to /proj/murmur.yaml\n"},
		{"MAN3_null_is_absent", "name: demo\nversion:\n", nil,
			"error[E-MAN-001]: /proj/murmur.yaml: missing required key 'version'\n  hint: add version to /proj/murmur.yaml\n"},
		{"MAN4_no_inference", "name: demo\nversion: 1.0.0\n", nil,
			"error[E-RUN-005]: /proj/murmur.yaml declares no inference block; script capsules are not supported by this build\n  hint: add inference.driver with a kind\n"},
		{"MAN4_no_driver", "name: demo\nversion: 1.0.0\ninference: {max_turns: 3}\n", nil,
			"error[E-RUN-005]: /proj/murmur.yaml: inference.driver is missing\n  hint: add inference.driver with a kind\n"},
		{"MAN4_no_kind", "name: demo\nversion: 1.0.0\ninference: {driver: {model: x}}\n", nil,
			"error[E-RUN-005]: /proj/murmur.yaml: inference.driver.kind is missing\n  hint: add inference.driver with a kind\n"},
		{"MAN6_artifact_version", head + "artifacts: [{name: murmur/tool-edit}]\n", nil,
			"error[E-MAN-001]: /proj/murmur.yaml: missing required key 'artifacts[0].version'\n  hint: add artifacts[0].version to /proj/murmur.yaml\n"},
		{"MAN4_model_required", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: openai, api_key: '${K}'}}\n", env("K", "v"),
			"error[E-MAN-001]: /proj/murmur.yaml: missing required key 'inference.driver.model'\n  hint: add inference.driver.model to /proj/murmur.yaml\n"},
		{"MAN4_script_required", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: scripted}}\n", nil,
			"error[E-MAN-001]: /proj/murmur.yaml: missing required key 'inference.driver.script'\n  hint: add inference.driver.script to /proj/murmur.yaml\n"},
		{"MAN8_alternate_name_required", head + "  alternates: [{kind: scripted, script: s.yaml}]\n", nil,
			"error[E-MAN-001]: /proj/murmur.yaml: missing required key 'inference.alternates[0].name'\n  hint: add inference.alternates[0].name to /proj/murmur.yaml\n"},
		{"MAN4_required_before_types", "name: demo\nversion: 1.0.0\ninference:\n  max_turns: ten\n", nil,
			"error[E-RUN-005]: /proj/murmur.yaml: inference.driver is missing\n  hint: add inference.driver with a kind\n"},
		// MAN-4 step 4 / MAN-5: E-MAN-003
		{"MAN5_name", strings.Replace(head, "name: demo", "name: Demo_1", 1), nil,
			"error[E-MAN-003]: /proj/murmur.yaml:1:7: name: 'Demo_1' is not an artifact name: it holds 'D'; only a-z, 0-9 and - are allowed\n  hint: correct name\n"},
		{"MAN5_version_space", strings.Replace(head, `"1.0.0"`, `"1.0 beta"`, 1), nil,
			"error[E-MAN-003]: /proj/murmur.yaml:2:10: version: '1.0 beta' is not a version: it holds whitespace\n  hint: correct version\n"},
		{"MAN5_runtime_enum", head + "runtime: wasm\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:10: runtime: 'wasm' is not one of capsule, tool, skill, driver, hook\n  hint: correct runtime\n"},
		{"MAN5_artifact_runtime_native", head + "artifacts: [{name: t, version: 1.0.0, runtime: native}]\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:48: artifacts[0].runtime: 'native' is not one of tool, skill, driver, hook\n  hint: correct artifacts[0].runtime\n"},
		{"MAN5_type_integer", head + "  max_turns: ten\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:14: inference.max_turns: 'ten' is not an integer\n  hint: correct inference.max_turns\n"},
		{"MAN5_zero", head + "  max_turns: 0\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:14: inference.max_turns: must be greater than 0\n  hint: correct inference.max_turns\n"},
		{"MAN5_negative", head + "lifecycle: {max_task_reopens: -1}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:31: lifecycle.max_task_reopens: must not be negative\n  hint: correct lifecycle.max_task_reopens\n"},
		{"MAN5_queue_depth_zero", head + "lifecycle: {queue_depth: 0}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:26: lifecycle.queue_depth: must be greater than 0\n  hint: correct lifecycle.queue_depth\n"},
		{"MAN5_acceptance_enum", head + "lifecycle: {task_acceptance: many}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:30: lifecycle.task_acceptance: 'many' is not one of none, single, queue\n  hint: correct lifecycle.task_acceptance\n"},
		{"MAN5_bool", head + "exports: {peer_tasks: {accept: yes}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:32: exports.peer_tasks.accept: 'yes' is not true or false\n  hint: correct exports.peer_tasks.accept\n"},
		{"MAN5_block_type", head + "capabilities: [shell]\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:15: capabilities: must be a mapping\n  hint: correct capabilities\n"},
		{"MAN7_removed_model", head + "  model: claude\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:10: inference.model was removed; set inference.driver.model instead\n  hint: correct inference.model\n"},
		{"MAN7_removed_api_key", head + "  api_key: ${K}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:12: inference.api_key was removed; set inference.driver.api_key instead\n  hint: correct inference.api_key\n"},
		{"MAN7_removed_endpoint", head + "  endpoint: https://x\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:13: inference.endpoint was removed; set inference.driver.endpoint instead\n  hint: correct inference.endpoint\n"},
		{"DRV3_literal_key", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: anthropic, model: m, api_key: sk-123}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:3:58: inference.driver.api_key: must be ${NAME}, an environment variable in UPPER_SNAKE case; a literal key is refused\n  hint: correct inference.driver.api_key\n"},
		{"DRV3_key_and_keyless", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: openai, model: m, api_key: '${K}', keyless: true}}\n", env("K", "v"),
			"error[E-MAN-003]: /proj/murmur.yaml:3:55: inference.driver.api_key: declare api_key or keyless: true, not both\n  hint: correct inference.driver.api_key\n"},
		{"DRV5_http_remote", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: openai, model: m, keyless: true, endpoint: 'http://example.com/v1'}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:3:71: inference.driver.endpoint: 'http://example.com/v1' uses http:// off this machine; only localhost, 127.0.0.0/8 and [::1] may use http://\n  hint: correct inference.driver.endpoint\n"},
		{"DRV5_userinfo", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: openai, model: m, keyless: true, endpoint: 'https://u:p@example.com'}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:3:71: inference.driver.endpoint: 'https://u:p@example.com' must not hold user information\n  hint: correct inference.driver.endpoint\n"},
		{"DRV5_env_in_endpoint", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: openai, model: m, keyless: true, endpoint: 'https://${HOST}/v1'}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:3:71: inference.driver.endpoint: 'https://${HOST}/v1' holds ${: an endpoint is written out, never read from the environment\n  hint: correct inference.driver.endpoint\n"},
		{"DRV7_endpoint_on_scripted", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: s.yaml, endpoint: 'https://x'}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:3:64: inference.driver.endpoint: the scripted driver takes no endpoint\n  hint: correct inference.driver.endpoint\n"},
		{"MAN6_kind_enum", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: murmur-driver-x}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:3:28: inference.driver.kind: 'murmur-driver-x' is not one of scripted, openai, anthropic\n  hint: correct inference.driver.kind\n"},
		{"MAN6_transport_other", head + "  transport: grpc\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:14: inference.transport: 'grpc' is not one of http, process\n  hint: correct inference.transport\n"},
		{"MAN6_prompt_twice", head + "  system_prompt: a\n  system_prompt_file: p.md\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:6:23: inference.system_prompt_file: declare system_prompt or system_prompt_file, not both\n  hint: correct inference.system_prompt_file\n"},
		{"MAN8_alternate_primary", head + "  alternates: [{name: primary, kind: scripted, script: s.yaml}]\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:23: inference.alternates[0].name: 'primary' names the inference.driver choice; choose another name\n  hint: correct inference.alternates[0].name\n"},
		{"MAN8_alternate_twice", head + "  alternates: [{name: a, kind: scripted, script: s.yaml}, {name: a, kind: scripted, script: s.yaml}]\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:66: inference.alternates[1].name: 'a' names another choice too\n  hint: correct inference.alternates[1].name\n"},
		{"MAN6_driver_config_window", head + "  alternates: [{name: a, kind: scripted, script: s.yaml, config: {context_window_tokens: 0}}]\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml: inference.alternates[0].config.context_window_tokens: must be greater than 0\n  hint: correct inference.alternates[0].config.context_window_tokens\n"},
		{"CAP_shell_no_allow", head + "capabilities: {shell: {strip_env: [X]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml: capabilities.shell.allow: a shell: block must list at least one binary\n  hint: correct capabilities.shell.allow\n"},
		{"CAP_shell_empty_block", head + "capabilities:\n  shell:\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml: capabilities.shell.allow: a shell: block must list at least one binary\n  hint: correct capabilities.shell.allow\n"},
		{"CAP_shell_path", head + "capabilities: {shell: {allow: [/bin/bash]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:32: capabilities.shell.allow[0]: '/bin/bash' is not a bare binary name\n  hint: correct capabilities.shell.allow[0]\n"},
		{"CAP_plan_without_submit", head + "capabilities: {plan: {}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:22: capabilities.plan: a plan: block must declare submit\n  hint: correct capabilities.plan\n"},
		{"CAP_peer_fetch_empty", head + "capabilities: {peer_fetch: {allow: []}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:36: capabilities.peer_fetch.allow: must list at least one entry\n  hint: correct capabilities.peer_fetch.allow\n"},
		{"CAP_install_pattern", head + "capabilities: {install: {tool: [edit]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:33: capabilities.install.tool[0]: 'edit' is neither a full name (<scope>/<name>) nor a pattern ending in *\n  hint: correct capabilities.install.tool[0]\n"},
		{"DLG1_spawn_bare_name", head + "capabilities: {spawn: {allow: [helper]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:32: capabilities.spawn.allow[0]: 'helper' is not an exact <scope>/<name>@<version>: it has no <scope>/\n  hint: correct capabilities.spawn.allow[0]\n"},
		{"DLG1_spawn_no_version", head + "capabilities: {spawn: {allow: [local/helper]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:32: capabilities.spawn.allow[0]: 'local/helper' is not an exact <scope>/<name>@<version>: it has no @<version>\n  hint: correct capabilities.spawn.allow[0]\n"},
		{"DLG1_spawn_latest", head + "capabilities: {spawn: {allow: [local/a@0.1.0, local/helper@latest]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:47: capabilities.spawn.allow[1]: 'local/helper@latest' is not an exact <scope>/<name>@<version>: 'latest' is reserved and resolves to no capsule\n  hint: correct capabilities.spawn.allow[1]\n"},
		{"DLG1_spawn_twice", head + "capabilities: {spawn: {allow: [local/a@0.1.0, other/a@0.1.0]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:47: capabilities.spawn.allow[1]: 'other/a@0.1.0' is not an exact <scope>/<name>@<version>: it names a@0.1.0 a second time\n  hint: correct capabilities.spawn.allow[1]\n"},
		{"DLG1_spawn_bad_name", head + "capabilities: {spawn: {allow: [local/He@0.1.0]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:32: capabilities.spawn.allow[0]: 'local/He@0.1.0' is not an exact <scope>/<name>@<version>: its name is not a capsule name: it holds 'H'; only a-z, 0-9 and - are allowed\n  hint: correct capabilities.spawn.allow[0]\n"},
		{"MAN6_tool_name_twice", head + "artifacts: [{name: a/edit, version: 1.0.0}, {name: b/edit, version: 2.0.0}]\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:52: artifacts[1].name: 'b/edit' declares the tool name 'edit' a second time\n  hint: correct artifacts[1].name\n"},
		{"LOOP14_done_check_not_allowed", head + "capabilities: {shell: {allow: [bash]}}\nlifecycle: {done_check: {command: make test}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:6:35: lifecycle.done_check.command: 'make' is not in capabilities.shell.allow\n  hint: correct lifecycle.done_check.command\n"},
		{"CTX_retain_empty", head + "context:\n  retain:\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:6:10: context.retain: declare max_messages, max_age or both\n  hint: correct context.retain\n"},
		{"CTX_record_enum", head + "context: {record: maybe}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:19: context.record: 'maybe' is not one of on, off\n  hint: correct context.record\n"},
		{"CTX_record_store_path", head + "context: {record_store: ../x}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:25: context.record_store: is not a record store name: it holds '.'; only a-z, 0-9 and - are allowed\n  hint: correct context.record_store\n"},
		{"SES9_retain_empty", head + "trace:\n  retain:\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:6:10: trace.retain: declare max_sessions, max_age or both\n  hint: correct trace.retain\n"},
		{"SES9_retain_zero", head + "trace: {retain: {max_sessions: 0}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:32: trace.retain.max_sessions: must be greater than 0\n  hint: correct trace.retain.max_sessions\n"},
		{"SES9_retain_age_zero", head + "trace: {retain: {max_age: 0d}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:27: trace.retain.max_age: must be greater than 0\n  hint: correct trace.retain.max_age\n"},
		{"MAN3_bad_duration", head + "trace: {retain: {max_age: 2w}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:27: trace.retain.max_age: '2w' is not a duration (an integer with an optional s, m, h or d suffix)\n  hint: correct trace.retain.max_age\n"},
		{"MAN3_bad_size", head + "exports: {files: {root: out, mode: read-only, max_bytes: 10MB}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:58: exports.files.max_bytes: '10MB' is not a size (an integer with an optional Ki, Mi or Gi suffix)\n  hint: correct exports.files.max_bytes\n"},
		{"CAP_agent_settings", head + "control: {agent_settings: [inference.model]}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:28: control.agent_settings[0]: 'inference.model' is not one of inference.driver\n  hint: correct control.agent_settings[0]\n"},
		{"AUTH2_scheme", head + "network: {authentication: {scheme: basic}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:36: network.authentication.scheme: 'basic' is not one of bearer\n  hint: correct network.authentication.scheme\n"},
		{"AUTH2_colon_name", head + "network: {authentication: {scheme: bearer, credentials: [{name: 'a:b', scopes: [GetTask]}]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:65: network.authentication.credentials[0].name: 'a:b' is not a credential name: names are non-empty and hold no ':'\n  hint: correct network.authentication.credentials[0].name\n"},
		{"AUTH3_old_scope", head + "network: {authentication: {scheme: bearer, credentials: [{name: ci, scopes: [tasks/get]}]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:78: network.authentication.credentials[0].scopes[0]: 'tasks/get' is not one of SendMessage, SendStreamingMessage, SubscribeToTask, stream/watch, GetTask, ListTasks, CancelTask, session/stop, resources/files\n  hint: correct network.authentication.credentials[0].scopes[0]\n"},
		{"AUTH2_scopes_required", head + "network: {authentication: {scheme: bearer, credentials: [{name: ci}]}}\n", nil,
			"error[E-MAN-001]: /proj/murmur.yaml: missing required key 'network.authentication.credentials[0].scopes'\n  hint: add network.authentication.credentials[0].scopes to /proj/murmur.yaml\n"},
		{"DOOR_port_range", head + "network: {internal_port: 70000}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:26: network.internal_port: must be at most 65535\n  hint: correct network.internal_port\n"},
		{"LISTEN_port_range", head + "capabilities: {network: {listen: [8080, 0]}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:41: capabilities.network.listen[1]: 0 is not a port (1-65535)\n  hint: correct capabilities.network.listen[1]\n"},
		// E-CAP-010 (step 4)
		{"LOOP10_config_not_mapping", head + "artifacts: [{name: t, version: 1.0.0, config: [1, 2]}]\n", nil,
			"error[E-CAP-010]: invalid config for artifact 't': 'config:' must be a mapping of keys to values\n  hint: make config a mapping under 65536 bytes of JSON\n"},
		{"LOOP10_config_too_large", head + "artifacts: [{name: t, version: 1.0.0, config: {k: " + strings.Repeat("x", 65530) + "}}]\n", nil,
			"error[E-CAP-010]: invalid config for artifact 't': 'config:' serializes to 65538 bytes of JSON, over the 65536-byte limit\n  hint: make config a mapping under 65536 bytes of JSON\n"},
		// MAN-4 step 5
		{"CAP001_path", head + "capabilities: {network: {allow: ['https://api.github.com/repos']}}\n", nil,
			"error[E-CAP-001]: invalid network allow entry 'https://api.github.com/repos': a URL entry takes no path\n  hint: write host, host:port or http(s)://host[:port]\n"},
		{"CAP001_scheme", head + "capabilities: {network: {allow: ['ftp://files.example.com']}}\n", nil,
			"error[E-CAP-001]: invalid network allow entry 'ftp://files.example.com': scheme 'ftp' is not http or https\n  hint: write host, host:port or http(s)://host[:port]\n"},
		{"CAP001_query", head + "capabilities: {network: {allow: ['https://x.com?a=1']}}\n", nil,
			"error[E-CAP-001]: invalid network allow entry 'https://x.com?a=1': a URL entry takes no query\n  hint: write host, host:port or http(s)://host[:port]\n"},
		{"CAP001_port", head + "capabilities: {network: {allow: ['localhost:99999']}}\n", nil,
			"error[E-CAP-001]: invalid network allow entry 'localhost:99999': port '99999' is not a number from 1 to 65535\n  hint: write host, host:port or http(s)://host[:port]\n"},
		{"CAP002_absolute", head + "capabilities: {filesystem: {scope: /etc}}\n", nil,
			"error[E-CAP-002]: invalid filesystem scope '/etc': scope must be relative to the workdir\n  hint: name a path inside the workdir\n"},
		{"CAP002_escape", head + "capabilities: {filesystem: {scope: ./a/../../b}}\n", nil,
			"error[E-CAP-002]: invalid filesystem scope './a/../../b': scope cannot escape the workdir via '..'\n  hint: name a path inside the workdir\n"},
		{"CAP012_absolute", head + "capabilities: {filesystem: {read_only: [docs, /srv]}}\n", nil,
			"error[E-CAP-012]: invalid read-only path '/srv': read-only path must be relative to the workdir\n  hint: name a path inside the workdir\n"},
		{"CAP012_escape", head + "capabilities: {filesystem: {read_only: [../x]}}\n", nil,
			"error[E-CAP-012]: invalid read-only path '../x': read-only path cannot escape the workdir via '..'\n  hint: name a path inside the workdir\n"},
		{"CAP007_files_root", head + "exports: {files: {root: ../out, mode: read-only}}\n", nil,
			"error[E-CAP-007]: exports.files.root '../out' resolves to '/out', which is outside the capsule workdir '/proj'\n  hint: point the export root at a directory inside the workdir\n"},
		{"CAP007_peer_files_root", head + "exports: {peer_files: {root: /tmp/x}}\n", nil,
			"error[E-CAP-007]: exports.peer_files.root '/tmp/x' resolves to '/tmp/x', which is outside the capsule workdir '/proj'\n  hint: point the export root at a directory inside the workdir\n"},
		{"CAP008_not_declared", head + "exports: {peer_files: {root: out}}\nlifecycle: {task_acceptance: queue, after_task: sleep}\n", nil,
			"error[E-CAP-008]: exports.peer_files with lifecycle.after_task: sleep requires exports.peer_files.max_ttl to be declared and at most 900s (not declared)\n  hint: declare exports.peer_files.max_ttl: 15m or shorter\n"},
		{"CAP008_too_long", head + "exports: {peer_files: {root: out, max_ttl: 1h}}\nlifecycle: {task_acceptance: queue, after_task: sleep}\n", nil,
			"error[E-CAP-008]: exports.peer_files with lifecycle.after_task: sleep requires exports.peer_files.max_ttl to be declared and at most 900s (declared 3600s)\n  hint: declare exports.peer_files.max_ttl: 15m or shorter\n"},
		{"MAN003_peer_files_max_ttl_zero", head + "exports: {peer_files: {root: out, max_ttl: 0}}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:5:44: exports.peer_files.max_ttl: must be at least 1s\n  hint: correct exports.peer_files.max_ttl\n"},
		{"CAP018_primary", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: anthropic, model: claude}}\n", nil,
			"error[E-CAP-018]: inference.driver (kind anthropic) binds no credential\n  hint: set api_key: ${NAME}, or keyless: true if the endpoint takes no key\n"},
		{"CAP018_alternate", head + "  alternates: [{name: local, kind: openai, model: q}]\n", nil,
			"error[E-CAP-018]: inference.alternates[0] (kind openai) binds no credential\n  hint: set api_key: ${NAME}, or keyless: true if the endpoint takes no key\n"},
		// MAN-4 step 6 (MAN-9, STAGE-6)
		{"STAGE6_reserved", head + "artifacts: [{name: murmur/delegate-task, version: 1.0.0}]\n", nil,
			"error[E-CAP-013]: artifact 'murmur/delegate-task' collides with a tool the runtime provides itself; the reserved names are share-file, fetch-peer-file, delegate-task, submit-plan, switch-driver, call-member, end-without-answer, pull-artifact, remove-artifact, session-status, background-command\n  hint: rename the artifact, or drop it if the runtime-provided tool is what you wanted\n"},
		// MAN-4 step 7 (DRV-3)
		{"DRV3_primary_unset", "name: demo\nversion: 1.0.0\ninference: {driver: {kind: anthropic, model: claude, api_key: '${ANTHROPIC_API_KEY}'}}\n", env(),
			"error[E-MAN-003]: /proj/murmur.yaml:3:63: inference.driver.api_key: the environment variable ANTHROPIC_API_KEY is not set\n  hint: export ANTHROPIC_API_KEY=<your key> before running mur, or add the line ANTHROPIC_API_KEY=<your key> to .env in the project directory (beside murmur.yaml, or a formation's roster.yaml)\n"},
		// MAN-4 order: a step-4 fault waits for the step-3 check; step 5 waits for step 4.
		{"MAN4_order_fault_before_cap", head + "capabilities: {filesystem: {scope: /etc}}\nlifecycle: {queue_depth: 0}\n", nil,
			"error[E-MAN-003]: /proj/murmur.yaml:6:26: lifecycle.queue_depth: must be greater than 0\n  hint: correct lifecycle.queue_depth\n"},
		{"MAN4_order_cap_before_reserved", head + "artifacts: [{name: session-status, version: 1.0.0}]\ncapabilities: {network: {allow: ['ftp://x']}}\n", nil,
			"error[E-CAP-001]: invalid network allow entry 'ftp://x': scheme 'ftp' is not http or https\n  hint: write host, host:port or http(s)://host[:port]\n"},
		{"MAN4_order_reserved_before_credentials", "name: demo\nversion: 1.0.0\nartifacts: [{name: call-member, version: 1.0.0}]\ninference: {driver: {kind: openai, model: m, api_key: '${UNSET_KEY}'}}\n", env(),
			"error[E-CAP-013]: artifact 'call-member' collides with a tool the runtime provides itself; the reserved names are share-file, fetch-peer-file, delegate-task, submit-plan, switch-driver, call-member, end-without-answer, pull-artifact, remove-artifact, session-status, background-command\n  hint: rename the artifact, or drop it if the runtime-provided tool is what you wanted\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, _, err := Parse(file, []byte(c.yaml), c.getenv)
			if err == nil {
				t.Fatalf("Parse() = %+v, nil; want %q", m, c.want)
			}
			d, ok := diag.As(err)
			if !ok {
				t.Fatalf("Parse() error = %v (%T), want a diagnostic", err, err)
			}
			if got := d.Render(); got != c.want {
				t.Errorf("Parse() error =\n%q\nwant\n%q", got, c.want)
			}
			if m != nil {
				t.Errorf("Parse() returned a manifest with its error")
			}
		})
	}
}

// TestLoadNotFound is MAN-4 step (1): E-IO-001.
func TestLoadNotFound(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "murmur.yaml")
	_, _, err := Load(path, nil)
	want := "error[E-IO-001]: " + path + ": no such file or directory\n  hint: check the path\n"
	if d, ok := diag.As(err); !ok || d.Render() != want {
		t.Fatalf("Load(%q) error = %v, want %q", path, err, want)
	}
}

// TestLoadUnreadable is E-IO-001's os-error form.
func TestLoadUnreadable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "murmur.yaml")
	if err := os.Mkdir(path, 0o700); err != nil { // a directory cannot be read as a file
		t.Fatal(err)
	}
	_, _, err := Load(path, nil)
	want := "error[E-IO-001]: " + path + ": is a directory\n  hint: check the path\n"
	if d, ok := diag.As(err); !ok || d.Render() != want {
		t.Fatalf("Load(%q) error = %v, want %q", path, err, want)
	}
}

// TestShellMisspeltAllow: a shell: block whose only key is a near miss of
// allow is refused naming it, as doctor's W-SEC-019 would.
func TestShellMisspeltAllow(t *testing.T) {
	_, _, err := Parse("murmur.yaml", []byte("name: y\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: s.yaml}}\ncapabilities:\n  shell: {alow: [ls]}\n"), func(string) string { return "" })
	want := "error[E-MAN-003]: murmur.yaml: capabilities.shell.allow: a shell: block must list at least one binary; it holds 'alow' — did you mean 'allow'?\n  hint: correct capabilities.shell.allow\n"
	d, ok := diag.As(err)
	if !ok || d.Render() != want {
		t.Errorf("Parse = %v\nwant %q", err, want)
	}
}

// TestYAMLIndentPosition: a YAML syntax error is reported at the line and
// column of its fault, not at the line (counted from 0) where yaml.v3 says
// the mapping, list or flow it was reading began: a key indented to no
// level of the keys above it, a line at a list's indentation that is not an
// entry, a bracket nothing closes.
func TestYAMLIndentPosition(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"name: y\nversion: 1.0.0\ninference:\n  driver:\n    kind: scripted\n   script: s.yaml\n", "murmur.yaml:6:4: this line is indented to no level of the keys above it"},
		{"name: y\nversion: 1.0.0\ninference:\n  driver:\n    kind: scripted\n    script: s.yaml\n lifecycle: {}\n", "murmur.yaml:7:2: this line is indented to no level of the keys above it"},
		{"name: y\nversion: 1.0.0\ninference:\n  driver: {kind: scripted\n  max_turns: 2\n", "murmur.yaml:4:11: this '{' is never closed (did not find expected ',' or '}')"},
		{"name: y\nversion: 1.0.0\ncapabilities:\n  shell:\n    allow: [sh, echo\n  env: {}\n", "murmur.yaml:5:12: this '[' is never closed (did not find expected ',' or ']')"},
		{"name: y\nversion: 1.0.0\nartifacts:\n  - name: a\n  version: 1\n", "murmur.yaml:5:3: this line is at the indentation of the list above it but is not an entry ('- ')"},
		{"name: y\nversion: 1.0.0\n- x\n", "murmur.yaml:3:1: did not find expected key"},
	} {
		_, _, err := Parse("murmur.yaml", []byte(c.yaml), func(string) string { return "" })
		if d, ok := diag.As(err); !ok || d.Code != diag.EMAN002 || d.Msg != c.want {
			t.Errorf("Parse(%q) = %v, want E-MAN-002 %q", c.yaml, err, c.want)
		}
	}
}
