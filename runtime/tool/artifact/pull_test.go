package artifact

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/tool"
)

// pullFix is a project with its stores, a session registry granting
// capabilities.install, and the installer answering pull and remove.
type pullFix struct {
	project, runtimeDir string
	stores              store.Stores
	reg                 *tool.Registry
	in                  *Installer
}

// shellTools stands in for the session's shell binaries: they hold their
// names (PULL-5) and answer nothing here.
type shellTools struct{}

func (shellTools) Tool(bin string) tool.Tool { return shellTool(bin) }

type shellTool string

func (s shellTool) Spec() tool.Spec { return tool.Spec{Name: string(s), Kind: tool.KindShell} }
func (s shellTool) Call(context.Context, *tool.CallContext, json.RawMessage) tool.Result {
	return tool.Refusal(string(s), "not in this test")
}

func newPullFix(t *testing.T, grant manifest.Install, declared ...tool.Artifact) *pullFix {
	t.Helper()
	root := t.TempDir()
	f := &pullFix{project: filepath.Join(root, "proj"), runtimeDir: filepath.Join(root, "proj", ".murmur", "ses_x")}
	f.stores = store.Stores{ProjectDir: f.project, Home: filepath.Join(root, "home")}
	for _, d := range []string{f.runtimeDir, f.stores.Home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f.in = NewInstaller(InstallConfig{Grant: grant, Stores: f.stores, LockDir: f.project, RuntimeDir: f.runtimeDir,
		Workdir: f.project, Env: []string{"PATH=" + os.Getenv("PATH")}, SessionID: "ses_x",
		Registry: func() *tool.Registry { return f.reg }})
	f.reg, _ = tool.Build(tool.Config{
		Grants:    tool.Grants{ShellAllow: []string{"bash"}, Install: true},
		Shell:     shellTools{},
		Artifacts: declared,
		Impl:      map[string]tool.Tool{tool.NamePullArtifact: f.in.Pull(), tool.NameRemoveArtifact: f.in.Remove()},
	})
	return f
}

// install writes an artifact's source and installs it into scope's store;
// extra is appended to its murmur.yaml.
func (f *pullFix) install(t *testing.T, name, version, runtime string, scope store.Scope, extra string) store.Resolved {
	t.Helper()
	src := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	man := "name: " + name + "\nversion: \"" + version + "\"\nruntime: " + runtime + "\ndescription: The " + name + " " + runtime + ".\n"
	files := map[string]string{}
	switch runtime {
	case "tool":
		man += "implementation: native\ncommand: run.sh\ninput_schema:\n  type: object\n  properties:\n    path: {type: string}\n  required: [path]\n"
		files["run.sh"] = "#!/bin/sh\necho \"edited $(cat)\"\n"
	case "skill":
		files["skill.md"] = "# " + name + "\nDo it well.\n"
	}
	files["murmur.yaml"] = man + extra
	for n, body := range files {
		if err := os.WriteFile(filepath.Join(src, n), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := f.stores.Install(src, store.ArtifactID{Name: name, Version: version, Runtime: runtime}, scope)
	if err != nil {
		t.Fatal(err)
	}
	if scope == store.ScopeProject { // Install pins it (origin operator); a pull test starts unpinned
		_ = os.Remove(filepath.Join(f.project, store.LockFile))
	}
	return r
}

func (f *pullFix) call(t *testing.T, self, artifact string) tool.Result {
	t.Helper()
	tl, refusal := f.reg.Lookup(self)
	if refusal != "" {
		t.Fatalf("Lookup(%s) = %s", self, refusal)
	}
	in, _ := json.Marshal(map[string]string{"artifact": artifact})
	return tl.Call(context.Background(), &tool.CallContext{TaskID: "tsk_a", Turn: 2}, in)
}

func (f *pullFix) lock(t *testing.T) *store.Lock {
	t.Helper()
	l, err := store.ReadLock(f.project)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

var toolsGrant = manifest.Install{Tool: []string{"murmur/*"}, Skill: []string{"skills/review"}}

func TestPullFromGlobalStore_PULL3(t *testing.T) {
	f := newPullFix(t, toolsGrant)
	r := f.install(t, "tool-edit", "1.0.0", "tool", store.ScopeGlobal, "")
	res := f.call(t, tool.NamePullArtifact, "murmur/tool-edit")
	content, _ := res.Content(tool.NamePullArtifact)
	want := "<untrusted-content source=tool:pull-artifact>\n" +
		`{"artifact":"murmur/tool-edit","fetched_from":"global store","runtime":"tool","tool_name":"tool-edit","version":"1.0.0"}` +
		"\n</untrusted-content>\ntool-edit is in your tool list from your next turn."
	if res.IsError() || content != want {
		t.Fatalf("content =\n%s\nwant\n%s", content, want)
	}
	if len(res.Records) != 1 {
		t.Fatalf("records = %+v", res.Records)
	}
	wantRec := `{"event_type":"artifact_pulled","turn":2,"task_id":"tsk_a","name":"murmur/tool-edit","version":"1.0.0","runtime":"tool",` +
		`"origin":"runtime","session":"ses_x","trust":"untrusted","fetched_from":"global store","sha256":"` + r.SHA256 + `"}`
	if got := res.Records[0].String(); got != wantRec {
		t.Errorf("record = %s\nwant %s", got, wantRec)
	}
	if e, ok := f.lock(t).Find("tool-edit"); !ok || e.Origin != store.OriginRuntime || e.ResolvedVersion != "1.0.0" || e.SHA256 != r.SHA256 {
		t.Errorf("murmur.lock entry = %+v, %v", e, ok)
	}
	staged, err := os.ReadFile(filepath.Join(f.runtimeDir, "tools", "tool-edit", "murmur.yaml"))
	if err != nil || !strings.HasPrefix(string(staged), "name: tool-edit\n") {
		t.Errorf("staged manifest = %q, %v", staged, err)
	}
	// Dispatch has it at once; the inventory sent changes at the next Refresh.
	self, refusal := f.reg.Lookup("tool-edit")
	if refusal != "" {
		t.Fatalf("Lookup(tool-edit) = %s", refusal)
	}
	out := self.Call(context.Background(), &tool.CallContext{}, json.RawMessage(`{"path":"a.txt"}`))
	if out.IsError() || out.Data != "edited {\"path\":\"a.txt\"}\n" {
		t.Errorf("pulled tool answered %+v", out)
	}
	added, removed, inv, changed := f.reg.Refresh()
	if !changed || strings.Join(added, ",") != "tool-edit" || len(removed) != 0 || inv[len(inv)-1].Name != "tool-edit" {
		t.Errorf("Refresh = %v, %v, %v, %v", added, removed, inv, changed)
	}
	if _, _, _, changed := f.reg.Refresh(); changed {
		t.Error("a second Refresh reported a change")
	}
}

func TestPullNewestFittingAndNotes_PULL2_PULL3(t *testing.T) {
	g := toolsGrant
	g.From = []string{"stores", "sources", "registry", "stores"}
	f := newPullFix(t, g)
	f.install(t, "tool-edit", "1.9.0", "tool", store.ScopeGlobal, "")
	f.install(t, "tool-edit", "1.10.0", "tool", store.ScopeProject, "")
	f.install(t, "tool-edit", "2.0.0", "tool", store.ScopeGlobal, "execution: wasm\n")
	res := f.call(t, tool.NamePullArtifact, "murmur/tool-edit")
	want := `{"artifact":"murmur/tool-edit","fetched_from":"project store","notes":["sources: the scope's GitHub source is not consulted by this build",` +
		`"'registry': not a place this mur can consult"],"runtime":"tool","tool_name":"tool-edit","version":"1.10.0"}`
	if res.IsError() || res.Data != want {
		t.Errorf("data = %s\nwant %s", res.Data, want)
	}
	res = f.call(t, tool.NamePullArtifact, "murmur/absent")
	want = "not-found: no allowed place holds murmur/absent (looked in: project store, global store); " +
		"sources: the scope's GitHub source is not consulted by this build; 'registry': not a place this mur can consult"
	if !res.Refused || res.Data != want {
		t.Errorf("refusal = %q\nwant %q", res.Data, want)
	}
}

func TestPullSkill_PULL3(t *testing.T) {
	f := newPullFix(t, toolsGrant)
	f.install(t, "review", "0.2.0", "skill", store.ScopeProject, "")
	res := f.call(t, tool.NamePullArtifact, "skills/review@0.2.0")
	if res.IsError() || res.Notes[0] != "review is in your tool list from your next turn." {
		t.Fatalf("result = %+v", res)
	}
	self, _ := f.reg.Lookup("review")
	out := self.Call(context.Background(), &tool.CallContext{}, nil)
	if c, _ := out.Content("review"); c != "<untrusted-content source=skill:review>\n# review\nDo it well.\n\n</untrusted-content>" {
		t.Errorf("skill content = %q", c)
	}
}

// TestPullRefusals_PULL5 holds every refusal text; none writes anything.
func TestPullRefusals_PULL5(t *testing.T) {
	grant := manifest.Install{Tool: []string{"murmur/*", "ana/*", "local/grep"}, Skill: []string{"skills/*"}}
	declared := &Native{Ref: "local/grep", Name: "grep"}
	f := newPullFix(t, grant, declared)
	f.install(t, "tool-edit", "1.0.0", "tool", store.ScopeGlobal, "")
	f.install(t, "wasm-tool", "1.0.0", "tool", store.ScopeGlobal, "")
	f.install(t, "wasm-tool", "2.0.0", "tool", store.ScopeGlobal, "execution: wasm\n")
	f.install(t, "only-wasm", "1.0.0", "tool", store.ScopeGlobal, "execution: wasm\n")
	f.install(t, "notes", "1.0.0", "skill", store.ScopeGlobal, "")
	f.install(t, "bash", "1.0.0", "tool", store.ScopeGlobal, "")
	bad := f.install(t, "broken", "1.0.0", "tool", store.ScopeGlobal, "")
	if err := os.WriteFile(filepath.Join(bad.TreeDir, "run.sh"), []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range []string{
		"tool-edit", "murmur/", "murmur/tool-edit@", "murmur/Tool",
		"ana/pull-artifact",
		"other/tool-edit", "local/grep", "murmur/grep", "murmur/bash",
		"murmur/notes", "skills/tool-edit",
		"murmur/absent", "murmur/tool-edit@9.9.9",
		"murmur/wasm-tool@2.0.0", "murmur/only-wasm",
		"murmur/broken",
		"nothing/*",
	} {
		res := f.call(t, tool.NamePullArtifact, in)
		if !res.Refused {
			t.Errorf("%s: not refused: %+v", in, res)
		}
		out = append(out, in+" → "+strings.ReplaceAll(res.Data, bad.SHA256, "<sha>"))
	}
	golden.Check(t, "pull_refusals", strings.Join(out, "\n")+"\n")
	if l := f.lock(t); l != nil {
		t.Errorf("a refusal wrote murmur.lock: %+v", l)
	}
	if _, err := os.Stat(filepath.Join(f.runtimeDir, "tools")); !os.IsNotExist(err) {
		t.Errorf("a refusal staged something: %v", err)
	}
	if _, _, _, changed := f.reg.Refresh(); changed {
		t.Error("a refusal changed the inventory")
	}
}

func TestPullLockConflict_PULL5(t *testing.T) {
	f := newPullFix(t, toolsGrant)
	r := f.install(t, "tool-edit", "1.0.0", "tool", store.ScopeGlobal, "")
	pin := store.LockEntry{Name: "tool-edit", ResolvedVersion: "0.9.0", Runtime: "tool", SHA256: strings.Repeat("a", 64), Origin: "operator"}
	if err := store.WriteLock(f.project, &store.Lock{Artifacts: []store.LockEntry{pin}}); err != nil {
		t.Fatal(err)
	}
	res := f.call(t, tool.NamePullArtifact, "murmur/tool-edit")
	want := "murmur.lock conflict for 'tool-edit': it pins 0.9.0@sha256:" + strings.Repeat("a", 64) +
		" (origin operator), but this pull is 1.0.0@sha256:" + r.SHA256
	if !res.Refused || res.Data != want {
		t.Errorf("refusal = %q\nwant %q", res.Data, want)
	}
	// The same pin, same bytes: accepted, and the operator's entry is kept.
	pin.ResolvedVersion, pin.SHA256 = "1.0.0", r.SHA256
	if err := store.WriteLock(f.project, &store.Lock{Artifacts: []store.LockEntry{pin}}); err != nil {
		t.Fatal(err)
	}
	if res := f.call(t, tool.NamePullArtifact, "murmur/tool-edit"); res.IsError() {
		t.Fatalf("pull over an equal pin: %+v", res)
	}
	if e, _ := f.lock(t).Find("tool-edit"); e != pin {
		t.Errorf("pin rewritten: %+v", e)
	}
}

func TestPullPattern_PULL4(t *testing.T) {
	grant := manifest.Install{Tool: []string{"murmur/tool-*", "ana/lint"}, Skill: []string{"skills/*"}, From: []string{"stores", "sources"}}
	f := newPullFix(t, grant)
	f.install(t, "tool-edit", "1.0.0", "tool", store.ScopeGlobal, "")
	f.install(t, "tool-edit", "1.2.0", "tool", store.ScopeProject, "")
	f.install(t, "tool-edit", "1.2.0", "tool", store.ScopeGlobal, "")
	f.install(t, "tool-wasm", "1.0.0", "tool", store.ScopeGlobal, "execution: wasm\n")
	f.install(t, "tool-notes", "1.0.0", "skill", store.ScopeGlobal, "") // a skill: not in the tool tier
	f.install(t, "lint", "3.0.0", "tool", store.ScopeGlobal, "")
	f.install(t, "review", "0.1.0", "skill", store.ScopeGlobal, "")
	var out []string
	for _, p := range []string{"murmur/*", "murmur/tool-e*", "*", "skills/*"} {
		res := f.call(t, tool.NamePullArtifact, p)
		if res.IsError() || len(res.Notes) != 0 || len(res.Records) != 0 {
			t.Errorf("%s: %+v", p, res)
		}
		out = append(out, p+" → "+res.Data)
	}
	golden.Check(t, "pull_patterns", strings.Join(out, "\n")+"\n")
	if _, _, _, changed := f.reg.Refresh(); changed {
		t.Error("a listing changed the inventory")
	}
}

func TestPullPatternCapped_PULL4(t *testing.T) {
	f := newPullFix(t, manifest.Install{Tool: []string{"m/*"}})
	for i := range 53 {
		f.install(t, "t"+strings.Repeat("x", i), "1.0.0", "tool", store.ScopeGlobal, "")
	}
	res := f.call(t, tool.NamePullArtifact, "m/*")
	var data struct {
		Matches []struct{ Artifact string } `json:"matches"`
		Omitted int                         `json:"omitted"`
	}
	if err := json.Unmarshal([]byte(res.Data), &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Matches) != 50 || data.Omitted != 3 || data.Matches[0].Artifact != "m/t" || data.Matches[49].Artifact != "m/t"+strings.Repeat("x", 49) {
		t.Errorf("matches = %d (%v…), omitted %d", len(data.Matches), data.Matches[0], data.Omitted)
	}
}

func TestPullSpec_PULL1(t *testing.T) {
	f := newPullFix(t, manifest.Install{Tool: []string{"murmur/*"}})
	pull, _ := f.reg.Lookup(tool.NamePullArtifact)
	remove, _ := f.reg.Lookup(tool.NameRemoveArtifact)
	var b strings.Builder
	for _, tl := range []tool.Tool{pull, remove} {
		s := tl.Spec()
		b.WriteString(s.Name + "\n" + s.Description + "\n" + string(s.InputSchema) + "\n")
	}
	golden.Check(t, "pull_spec", b.String())
}
