package manifest

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func mustParse(t *testing.T, yaml string, getenv func(string) string) *Manifest {
	t.Helper()
	m, _, err := Parse(file, []byte(yaml), getenv)
	if err != nil {
		t.Fatalf("Parse() error = %v", err)
	}
	return m
}

// TestDefaults is capsule.md §1.4–§1.6's defaults on the smallest capsule.
func TestDefaults(t *testing.T) {
	t.Parallel()
	m := mustParse(t, head+"lifecycle: {keep_working: {}, done_check: {command: bash check.sh}}\ncapabilities: {shell: {allow: [bash]}}\n", nil)
	wantLC := Lifecycle{
		TaskAcceptance: "single", AfterTask: "exit", QueueDepth: 1, MaxTaskReopens: 1,
		KeepWorking:            &KeepWorking{Limit: 1, Message: DefaultKeepWorkingMessage},
		DoneCheck:              &DoneCheck{Command: "bash check.sh", Limit: 1, TimeoutSecs: 600},
		DelegationDeadlineSecs: 600, Conversation: "stateless",
	}
	if !reflect.DeepEqual(m.Lifecycle, wantLC) {
		t.Errorf("Lifecycle = %+v, want %+v", m.Lifecycle, wantLC)
	}
	in := m.Inference
	if in.Transport != "http" || in.MaxTurns != 10 || in.MaxTokens != 8192 || in.ToolRefresh != "task" || in.MaxSessionTokens != 0 {
		t.Errorf("Inference = %+v, want transport http, max_turns 10, max_tokens 8192, tool_refresh task", in)
	}
	wantDriver := DriverBlock{Name: "primary", Where: "inference.driver", Kind: "scripted", Model: "scripted",
		Script: "script.yaml", Config: map[string]any{}, Available: true}
	if !reflect.DeepEqual(in.Driver, wantDriver) {
		t.Errorf("Driver = %+v, want %+v", in.Driver, wantDriver)
	}
	if m.Trace.Capture != "meta" || m.Trace.Retain != nil {
		t.Errorf("Trace = %+v, want capture meta, no retain", m.Trace)
	}
	if m.Network.InternalPort != 0 || m.Network.Authentication != nil || m.Exports.PeerTasks.Accept {
		t.Errorf("Network/Exports = %+v / %+v, want OS port, public door, no peer tasks", m.Network, m.Exports)
	}
	if m.Lifecycle.ShellGraceSecs != nil || m.Lifecycle.DeadlineNoticeSecs != nil {
		t.Error("ShellGraceSecs/DeadlineNoticeSecs set, want nil when absent")
	}
	if got, want := m.ScriptPath(in.Driver), "/proj/script.yaml"; got != want {
		t.Errorf("ScriptPath() = %q, want %q", got, want)
	}
}

// TestFullManifest decodes every built key (capsule.md §1).
func TestFullManifest(t *testing.T) {
	t.Parallel()
	yaml := `name: coder
version: 1.10
description: writes code
mur_version: "0.1.0"
artifacts:
  - name: murmur/tool-edit
    version: 2.0
    config: {mode: strict, depth: 3}
  - {name: review, version: 1.0.0, runtime: skill}
capabilities:
  shell: {allow: [bash, go], strip_env: [AWS_*], baseline_env: [PATH]}
  network: {allow: [localhost, "api.example.com:8443", "https://api.github.com"]}
  filesystem: {scope: ./work, read_only: [docs]}
  plan: {submit: true}
  install: {skill: ["murmur/*"], tool: [murmur/tool-edit], from: [stores]}
exports:
  peer_tasks: {accept: true}
network:
  internal_port: 14159
  authentication:
    scheme: bearer
    credentials: [{name: ci, scopes: [SendMessage, GetTask]}]
control: {agent_settings: [inference.driver]}
trace:
  capture: content
  retain: {max_sessions: 5, max_age: 14d}
lifecycle:
  task_acceptance: queue
  after_task: sleep
  queue_depth: 3
  max_task_reopens: 0
  keep_working: {limit: 2, message: go on}
  done_check: {command: go test ./..., limit: 0, timeout_secs: 60}
  shell_grace_secs: 30
  deadline_notice_secs: 0
  delegation_deadline_secs: 120
inference:
  driver: {kind: anthropic, model: claude-x, api_key: "${ANTHROPIC_API_KEY}", config: {request_timeout_secs: 30}}
  alternates:
    - {name: local, kind: openai, model: "qwen2.5-coder:7b", endpoint: "http://localhost:11434/v1", keyless: true}
    - {name: cheap, kind: openai, model: mini, api_key: "${OPENAI_API_KEY}"}
  max_turns: 20
  max_tokens: 1024
  max_session_tokens: 500000
  system_prompt_file: prompt.md
  tool_refresh: turn
`
	m := mustParse(t, yaml, env("ANTHROPIC_API_KEY", "a", "OPENAI_API_KEY", "o"))
	if m.Version != "1.10" || m.Artifacts[0].Version != "2.0" {
		t.Errorf("versions = %q, %q; want 1.10, 2.0 (MAN-3 source text)", m.Version, m.Artifacts[0].Version)
	}
	a := m.Artifacts[0]
	if a.Ref != "murmur/tool-edit" || a.Scope != "murmur" || a.Name != "tool-edit" || a.Runtime != "tool" ||
		string(a.ConfigJSON) != `{"depth":3,"mode":"strict"}` {
		t.Errorf("artifacts[0] = %+v", a)
	}
	if m.Artifacts[1].Runtime != "skill" || m.Artifacts[1].ConfigJSON != nil {
		t.Errorf("artifacts[1] = %+v, want a skill without config", m.Artifacts[1])
	}
	if got := len(m.Capabilities.Network.Allow); got != 3 {
		t.Errorf("network.allow has %d entries, want 3", got)
	}
	if !m.Capabilities.Plan.Submit || !m.Control.SwitchDriver() || !m.Exports.PeerTasks.Accept {
		t.Error("plan.submit, switch-driver or peer_tasks.accept not read")
	}
	wantAuth := &Authentication{Scheme: "bearer", Credentials: []Credential{{Name: "ci", Scopes: []string{"SendMessage", "GetTask"}}}}
	if !reflect.DeepEqual(m.Network.Authentication, wantAuth) || m.Network.InternalPort != 14159 {
		t.Errorf("network = %+v, want port 14159 and %+v", m.Network, wantAuth)
	}
	if *m.Trace.Retain != (Retain{MaxSessions: 5, MaxAge: 14 * 24 * time.Hour}) || m.Trace.Capture != "content" {
		t.Errorf("trace = %+v / %+v", m.Trace, *m.Trace.Retain)
	}
	lc := m.Lifecycle
	if lc.QueueDepth != 3 || lc.MaxTaskReopens != 0 || *lc.ShellGraceSecs != 30 || *lc.DeadlineNoticeSecs != 0 ||
		lc.DelegationDeadlineSecs != 120 || lc.KeepWorking.Message != "go on" || lc.DoneCheck.Limit != 0 || lc.DoneCheck.TimeoutSecs != 60 {
		t.Errorf("lifecycle = %+v", lc)
	}
	choices := m.Inference.Choices()
	if len(choices) != 3 || choices[1].Name != "local" || choices[1].CredentialSource() != "keyless" ||
		choices[0].CredentialSource() != "environment" || choices[0].APIKeyEnv != "ANTHROPIC_API_KEY" || !choices[2].Available {
		t.Errorf("choices = %+v", choices)
	}
	if got := m.SystemPromptPath(); got != "/proj/prompt.md" {
		t.Errorf("SystemPromptPath() = %q, want /proj/prompt.md", got)
	}
	if m.Inference.ToolRefresh != "turn" || m.Inference.MaxSessionTokens != 500000 {
		t.Errorf("inference = %+v", m.Inference)
	}
}

// TestDurationsAndSizes is MAN-3.
func TestDurationsAndSizes(t *testing.T) {
	t.Parallel()
	durations := map[string]time.Duration{"30": 30 * time.Second, "30s": 30 * time.Second, "5m": 5 * time.Minute, "2h": 2 * time.Hour, "1d": 24 * time.Hour}
	for in, want := range durations {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "s", "-5", "+5", "1.5h", "5 m", "2w"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) succeeded, want an error", bad)
		}
	}
	sizes := map[string]int64{"10": 10, "10Ki": 10 << 10, "10Mi": 10 << 20, "2Gi": 2 << 30}
	for in, want := range sizes {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "Mi", "10MB", "-1", "1.5Mi"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) succeeded, want an error", bad)
		}
	}
	m := mustParse(t, head+"exports: {files: {root: out, mode: read-only}, peer_files: {root: out, max_ttl: 900, max_bytes: 1Ki}}\n", nil)
	if m.Exports.Files.MaxBytes != 10<<20 || m.Exports.PeerFiles.MaxBytes != 1024 || m.Exports.PeerFiles.MaxTTL != 15*time.Minute {
		t.Errorf("exports = %+v / %+v", *m.Exports.Files, *m.Exports.PeerFiles)
	}
}

// TestCheckExports re-checks export roots against another workdir (E-CAP-007).
func TestCheckExports(t *testing.T) {
	t.Parallel()
	m := mustParse(t, head+"exports: {files: {root: out, mode: read-only}}\n", nil)
	if d := m.CheckExports("/proj"); d != nil {
		t.Errorf("CheckExports(/proj) = %q, want nil", d.Render())
	}
	m2 := mustParse(t, head+"exports: {files: {root: /proj/out, mode: read-only}}\n", nil)
	want := "error[E-CAP-007]: exports.files.root '/proj/out' resolves to '/proj/out', which is outside the capsule workdir '/elsewhere'\n  hint: point the export root at a directory inside the workdir\n"
	if d := m2.CheckExports("/elsewhere"); d == nil || d.Render() != want {
		t.Errorf("CheckExports(/elsewhere) = %v, want %q", d, want)
	}
}

// TestReservedToolNames is tools.md STAGE-5: eleven names, in order.
func TestReservedToolNames(t *testing.T) {
	t.Parallel()
	want := []string{"share-file", "fetch-peer-file", "delegate-task", "submit-plan", "switch-driver", "call-member",
		"end-without-answer", "pull-artifact", "remove-artifact", "session-status", "background-command"}
	if !reflect.DeepEqual(ReservedToolNames, want) {
		t.Errorf("ReservedToolNames = %v, want %v", ReservedToolNames, want)
	}
	if !IsReserved("call-member") || IsReserved("bash") {
		t.Error("IsReserved disagrees with STAGE-5 / STAGE-7")
	}
}

// TestNames checks the artifact-name and version rules (capsule.md §1.2).
func TestNames(t *testing.T) {
	t.Parallel()
	names := map[string]string{
		"hello-shell": "", "a": "", "x1-2": "",
		"":                       "it is empty",
		"-a":                     "it starts or ends with -",
		"a-":                     "it starts or ends with -",
		"Hello":                  "it holds 'H'; only a-z, 0-9 and - are allowed",
		"a_b":                    "it holds '_'; only a-z, 0-9 and - are allowed",
		"a/b":                    "it holds '/'; only a-z, 0-9 and - are allowed",
		strings.Repeat("a", 101): "it is 101 characters long; at most 100 are allowed",
	}
	for in, want := range names {
		if got := NameProblem(in); got != want {
			t.Errorf("NameProblem(%q) = %q, want %q", in, got, want)
		}
	}
	if !IsReservedVersion("latest") || IsReservedVersion("1.0.0") {
		t.Error("IsReservedVersion disagrees with capsule.md §1.2")
	}
	const notSemVer = "it is not a SemVer version (MAJOR[.MINOR[.PATCH[-PRERELEASE][+BUILD]]])"
	versions := map[string]string{
		"1.0.0": "", "0.1.0": "", "1": "", "1.10": "", "2.0": "", "1.2.3-rc.1+build.5": "", "1.0.0-alpha-1": "", "latest": "",
		"":                      "it is empty",
		strings.Repeat("1", 65): "it is 65 characters long; at most 64 are allowed",
		"1.0 beta":              "it holds whitespace",
		"a/b":                   "it holds '/'",
		"../../../../tmp/x":     "it holds '/'",
		"..":                    notSemVer,
		".":                     notSemVer,
		`..\x`:                  notSemVer,
		"v1.0.0":                notSemVer,
		"01.0.0":                notSemVer,
		"1.0.0.0":               notSemVer,
		"1.0-rc1":               notSemVer,
		"1.0.0-":                notSemVer,
		"1.0.0-01":              notSemVer,
		"1.0.0\x00":             notSemVer,
	}
	for in, want := range versions {
		if got := VersionProblem(in); got != want {
			t.Errorf("VersionProblem(%q) = %q, want %q", in, got, want)
		}
	}
}

// The context block: the record is on in the capsule's own store by
// default; on/off read as words or YAML 1.1 booleans; retain bounds it.
func TestContextBlock(t *testing.T) {
	t.Parallel()
	m := mustParse(t, head, nil)
	if want := (Context{Record: "on", RecordStore: m.Name}); !reflect.DeepEqual(m.Context, want) {
		t.Errorf("default Context = %+v, want %+v", m.Context, want)
	}
	m = mustParse(t, head+"context: {record: off, record_store: shey, retain: {max_messages: 2000, max_age: 90d}}\n", nil)
	want := Context{Record: "off", RecordStore: "shey", Retain: &ContextRetain{MaxMessages: 2000, MaxAge: 90 * 24 * time.Hour}}
	if !reflect.DeepEqual(m.Context, want) {
		t.Errorf("Context = %+v, want %+v", m.Context, want)
	}
	if m = mustParse(t, head+"context: {record: false}\n", nil); m.Context.Record != "off" {
		t.Errorf("record: false read as %q, want off", m.Context.Record)
	}
}
