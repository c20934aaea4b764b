package tool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
)

type fakeTool struct {
	name string
	kind Kind
}

func (f *fakeTool) Spec() Spec {
	return Spec{Name: f.name, Description: "fake " + f.name, InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), Kind: f.kind}
}
func (f *fakeTool) Call(context.Context, *CallContext, json.RawMessage) Result {
	return Result{Status: Passed, Data: f.name}
}

type fakeArtifact struct {
	fakeTool
	required []string
}

func (f *fakeArtifact) Manifest() []byte   { return []byte("name: local/" + f.name + "\n") }
func (f *fakeArtifact) Required() []string { return f.required }
func (f *fakeArtifact) FullName() string   { return "local/" + f.name }

// fakeShell makes shell binary tools that answer nothing.
type fakeShell struct{}

func (fakeShell) Tool(bin string) Tool { return &fakeTool{name: bin, kind: KindShell} }

func impl(names ...string) map[string]Tool {
	m := map[string]Tool{}
	for _, n := range names {
		m[n] = &fakeTool{name: n, kind: KindRuntime}
	}
	return m
}

func TestStagingFollowsGrants_STAGE1_3(t *testing.T) {
	reg, warns := Build(Config{
		Grants: Grants{ShellAllow: []string{"bash", "git"}, ShellGrace: true, SwitchDriver: true},
		Shell:  fakeShell{},
		Artifacts: []Artifact{
			&fakeArtifact{fakeTool: fakeTool{name: "grep", kind: KindNative}, required: []string{"pattern"}},
		},
		Impl: impl(NameSessionStatus, NameBackgroundCommand, NameSwitchDriver, NameSubmitPlan, NameCallMember),
	})
	if len(warns) != 0 {
		t.Errorf("warnings = %v", warns)
	}
	got := strings.Join(reg.Declared(), ",")
	want := "grep,bash,git,switch-driver,session-status,background-command"
	if got != want {
		t.Errorf("tools_declared = %s, want %s", got, want)
	}
	dir := t.TempDir()
	if err := reg.Stage(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "tools"))
	var staged []string
	for _, e := range entries {
		staged = append(staged, e.Name())
	}
	if got, want := strings.Join(staged, ","), "background-command,bash,git,grep,session-status,switch-driver"; got != want {
		t.Errorf("staged = %s, want %s", got, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "tools", "session-status", "murmur.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "staged_session_status", string(b))
	// A shell binary's staged manifest is tool/shell's (staged_bash).
	b, _ = os.ReadFile(filepath.Join(dir, "tools", "grep", "murmur.yaml"))
	if string(b) != "name: local/grep\n" {
		t.Errorf("artifact manifest staged as %q", b)
	}
}

func TestNoGrantNoTool_STAGE3_TOOL4(t *testing.T) {
	reg, _ := Build(Config{Impl: impl(NameSessionStatus, NameBackgroundCommand, NameSwitchDriver, NameCallMember, NameEndWithoutAnswer)})
	if got := strings.Join(reg.Declared(), ","); got != "session-status" {
		t.Errorf("tools_declared = %s, want session-status only", got)
	}
	cases := map[string]string{
		NameSwitchDriver:      "tool 'switch-driver' does not exist in this session: it exists only when the capsule declares control.agent_settings: [inference.driver]",
		NameBackgroundCommand: "tool 'background-command' does not exist in this session: it exists only when the capsule declares inference: block, non-empty capabilities.shell.allow and lifecycle.shell_grace_secs set",
		NameSubmitPlan:        "tool 'submit-plan' does not exist in this session: it exists only when the capsule declares capabilities.plan.submit",
		NamePullArtifact:      "tool 'pull-artifact' does not exist in this session: it exists only when the capsule declares capabilities.install, under transport: http",
		NameRemoveArtifact:    "tool 'remove-artifact' does not exist in this session: it exists only when the capsule declares the same grant as pull-artifact",
		NameShareFile:         "tool 'share-file' does not exist in this session: it exists only when the capsule declares exports.peer_files",
		NameFetchPeerFile:     "tool 'fetch-peer-file' does not exist in this session: it exists only when the capsule declares capabilities.peer_fetch",
		NameDelegateTask:      "tool 'delegate-task' does not exist in this session: it exists only when the capsule declares capabilities.spawn.allow non-empty",
		NameCallMember:        "'call-member' is answered only for a formation member that roster.yaml lets call another; this session is not one",
		NameEndWithoutAnswer:  "'end-without-answer' is answered only for a formation member that roster.yaml lets call another; this session is not one",
		"bash":                "tool 'bash' is not in this session's inventory",
	}
	for name, want := range cases {
		tool, refusal := reg.Lookup(name)
		if tool != nil || refusal != want {
			t.Errorf("Lookup(%s) = %v, %q; want refusal %q", name, tool, refusal, want)
		}
	}
	dir := t.TempDir()
	if err := reg.Stage(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tools", "switch-driver")); !os.IsNotExist(err) {
		t.Errorf("tools/switch-driver exists without its grant: %v", err)
	}
}

// TestGrantedNotBuilt_TOOL3: a granted tool this build does not answer
// (share-file, fetch-peer-file: PFILE is LATER) is not staged, and a call
// reads "not supported by this build"; delegate-task with its grant and an
// implementation is staged like any other.
func TestGrantedNotBuilt_TOOL3(t *testing.T) {
	reg, _ := Build(Config{
		Grants: Grants{PeerFiles: true, PeerFetch: true, SpawnAllow: []string{"local/worker@0.1.0"}},
		Impl:   impl(NameSessionStatus, NameDelegateTask),
	})
	if got := strings.Join(reg.Declared(), ","); got != "delegate-task,session-status" {
		t.Errorf("tools_declared = %s", got)
	}
	for _, name := range []string{NameShareFile, NameFetchPeerFile} {
		if _, refusal := reg.Lookup(name); refusal != "tool '"+name+"' is not supported by this build" {
			t.Errorf("Lookup(%s) refusal = %q", name, refusal)
		}
	}
	if tl, refusal := reg.Lookup(NameDelegateTask); tl == nil || refusal != "" {
		t.Errorf("Lookup(delegate-task) = %v, %q", tl, refusal)
	}
}

func TestShellYields_STAGE7(t *testing.T) {
	reg, warns := Build(Config{
		Grants:    Grants{ShellAllow: []string{"bash", "session-status"}},
		Shell:     fakeShell{},
		Artifacts: []Artifact{&fakeArtifact{fakeTool: fakeTool{name: "bash", kind: KindNative}}},
		Impl:      impl(NameSessionStatus),
	})
	if len(warns) != 1 || warns[0].Code != diag.WSEC019 ||
		warns[0].Msg != "capabilities.shell.allow entry 'session-status' is ignored: the runtime provides a tool of that name" {
		t.Errorf("warnings = %v", warns)
	}
	if got := strings.Join(reg.Declared(), ","); got != "bash,session-status" {
		t.Errorf("tools_declared = %s", got)
	}
	tool, _ := reg.Lookup("bash")
	if tool.Spec().Kind != KindNative {
		t.Errorf("bash dispatches to kind %v, want the native artifact (STAGE-8)", tool.Spec().Kind)
	}
	tool, _ = reg.Lookup("session-status")
	if tool.Spec().Kind != KindRuntime {
		t.Errorf("session-status dispatches to kind %v, want the runtime tool", tool.Spec().Kind)
	}
}

func TestGrantedButNotBuilt(t *testing.T) {
	reg, _ := Build(Config{Grants: Grants{PlanSubmit: true}, Impl: impl(NameSessionStatus)})
	if _, refusal := reg.Lookup(NameSubmitPlan); refusal != "tool 'submit-plan' is not supported by this build" {
		t.Errorf("refusal = %q", refusal)
	}
	if strings.Contains(strings.Join(reg.Declared(), ","), NameSubmitPlan) {
		t.Error("an unbuilt tool was declared")
	}
}

func TestMissingRequired_LOOP9(t *testing.T) {
	a := &fakeArtifact{fakeTool: fakeTool{name: "grep", kind: KindNative}, required: []string{"pattern", "path"}}
	reg, _ := Build(Config{Artifacts: []Artifact{a}})
	tool, _ := reg.Lookup("grep")
	missing := reg.MissingRequired(tool, json.RawMessage(`{"path":"."}`))
	if got := LacksRequired("grep", missing); got != "tool 'grep' input lacks required field(s): pattern" {
		t.Errorf("LacksRequired = %q", got)
	}
	missing = reg.MissingRequired(tool, json.RawMessage(`"x"`))
	if got := LacksRequired("grep", missing); got != "tool 'grep' input lacks required field(s): pattern, path" {
		t.Errorf("LacksRequired = %q", got)
	}
}
