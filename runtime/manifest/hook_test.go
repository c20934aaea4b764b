package manifest

import (
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
)

// TestHookContractTable walks every binding (and none) against every
// commit_policy and execution_mode through LoadArtifact, and compares the
// admitted contracts and every refusal — murmur's binding ↔ policy table
// and its texts — with hook_contract.golden.
func TestHookContractTable(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	bindings := append([]string{""}, HookBindings...)
	for _, bind := range bindings {
		for _, pol := range append([]string{""}, HookPolicies...) {
			for _, mode := range []string{"", "async"} {
				y := "name: my-hook\nversion: 1.0.0\nruntime: hook\nimplementation: native\ncommand: run\n"
				if bind != "" {
					y += "binding: " + bind + "\n"
				}
				if pol != "" {
					y += "commit_policy: " + pol + "\n"
				}
				if mode != "" {
					y += "execution_mode: " + mode + "\n"
				}
				dir := artifactDir(t, y, "run")
				m, _, err := LoadArtifact(dir)
				b.WriteString("binding=" + bind + " commit_policy=" + pol + " execution_mode=" + mode + "\n")
				if err != nil {
					d, ok := diag.As(err)
					if !ok {
						t.Fatalf("LoadArtifact() = %v, want a diagnostic", err)
					}
					b.WriteString(d.Render())
					continue
				}
				h := m.Hook
				b.WriteString("  ok: " + h.Binding + " " + h.ExecutionMode + " " + h.CommitPolicy + "\n")
			}
		}
	}
	golden.Check(t, "hook_contract", []byte(b.String()))
}

// TestHookEntry reads a capsule's hook entry: on_overflow defaults to drop,
// the grant's keys, and both keys refused on another role.
func TestHookEntry(t *testing.T) {
	t.Parallel()
	m, _, err := Parse(file, []byte(head+"artifacts:\n  - name: h\n    version: 1.0.0\n    runtime: hook\n    capabilities:\n      conversation: {read: true}\n      limits: {deadline_seconds: 2}\n      filesystem: {scope: hook-state}\n"), env())
	if err != nil {
		t.Fatal(err)
	}
	a := m.Artifacts[0]
	if a.OnOverflow != "drop" || a.Hook == nil || !a.Hook.ConversationRead || a.Hook.TaskIORead || a.Hook.DeadlineSecs != 2 || a.Hook.Scope != "hook-state" {
		t.Errorf("entry = %+v, grant %+v", a, a.Hook)
	}
	for _, c := range []struct{ yaml, want string }{
		{"artifacts:\n  - {name: t, version: 1.0.0, on_overflow: block}\n",
			"error[E-MAN-003]: /proj/murmur.yaml:6:44: artifacts[0].on_overflow: is read only on a runtime: hook entry\n  hint: correct artifacts[0].on_overflow\n"},
		{"artifacts:\n  - {name: h, version: 1.0.0, runtime: hook, capabilities: {conversation: {}}}\n",
			"error[E-MAN-001]: /proj/murmur.yaml: missing required key 'artifacts[0].capabilities.conversation.read'\n  hint: add artifacts[0].capabilities.conversation.read to /proj/murmur.yaml\n"},
		{"artifacts:\n  - {name: h, version: 1.0.0, runtime: hook, capabilities: {filesystem: {scope: ../x}}}\n",
			"error[E-MAN-003]: /proj/murmur.yaml:6:81: artifacts[0].capabilities.filesystem.scope: '../x' must be a path inside the workdir\n  hint: correct artifacts[0].capabilities.filesystem.scope\n"},
	} {
		_, _, err := Parse(file, []byte(head+c.yaml), env())
		if d, ok := diag.As(err); !ok || d.Render() != c.want {
			t.Errorf("Load(%q) = %v, want %q", c.yaml, err, c.want)
		}
	}
}
