package manifest

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/diag"
)

// HookBindings are the values of a hook artifact's binding, in murmur's
// order. A hook with no binding is dispatched at every event, observe only.
var HookBindings = []string{
	"on-stage", "on-session-start", "on-task-start", "on-inference", "on-tool-call",
	"on-shell", "on-compaction", "on-task-end", "on-session-end",
}

// HookPolicies are the values of a hook artifact's commit_policy.
var HookPolicies = []string{"none", "write-manifests", "replace-context", "reopen-task", "seed-context", "deny"}

// bindingPolicy is the one commit_policy besides none each binding honors
// (murmur's binding ↔ policy table); "" for a binding that commits nothing.
var bindingPolicy = map[string]string{
	"on-stage":         "write-manifests",
	"on-compaction":    "replace-context",
	"on-task-end":      "reopen-task",
	"on-task-start":    "seed-context",
	"on-shell":         "deny",
	"on-tool-call":     "deny",
	"on-inference":     "",
	"on-session-start": "",
	"on-session-end":   "",
}

// BindingPolicy returns the commit_policy binding honors besides none, ""
// when it commits nothing.
func BindingPolicy(binding string) string { return bindingPolicy[binding] }

// hookContract returns m's hook contract, made on first use.
func (m *Manifest) hookContract() *HookContract {
	if m.Hook == nil {
		m.Hook = &HookContract{}
	}
	return m.Hook
}

// hookKind checks a hook artifact (murmur's hook contract, with one change
// of packaging: a hook is a native executable): implementation native, a
// command inside dir, then the contract — async only with commit_policy
// none, on-stage never async, each binding's one policy, deny only under an
// explicit on-shell or on-tool-call binding.
func (l *loader) hookKind(dir string) *diag.Diagnostic {
	m := l.m
	if m.Implementation != "native" {
		if m.Implementation == "" {
			return diag.ManMissingKey(l.file, "implementation")
		}
		return diag.ManNotOneOf(l.file, "implementation", m.Implementation, "native")
	}
	if d := l.commandInside(dir); d != nil {
		return d
	}
	h := m.hookContract()
	if h.ExecutionMode == "" {
		h.ExecutionMode = "blocking"
	}
	if h.CommitPolicy == "" {
		h.CommitPolicy = "none"
	}
	return HookContractProblem(m.Name, m.Version, *h)
}

// HookContractProblem is the refusal of a hook contract murmur's table does
// not admit, nil when it does. The texts are murmur's for the binding and
// deny rules; the execution_mode ones are ours.
func HookContractProblem(name, version string, h HookContract) *diag.Diagnostic {
	switch {
	case h.Binding == "on-stage" && h.ExecutionMode == "async":
		return diag.HookConfig(name, version, "execution_mode", "execution_mode 'async' is not valid for binding 'on-stage'; binding 'on-stage' must be blocking")
	case h.ExecutionMode == "async" && h.CommitPolicy != "none":
		return diag.HookConfig(name, version, "execution_mode", fmt.Sprintf("execution_mode 'async' requires commit_policy 'none', not '%s'; nothing waits for an async hook's answer, so there is nowhere to apply it", h.CommitPolicy))
	case h.Binding == "" && h.CommitPolicy == "deny":
		return diag.HookConfig(name, version, "binding", "commit_policy 'deny' requires an explicit binding: 'on-shell' or 'on-tool-call'; a hook with no binding: is dispatched at every event, including decision points it was not written to decide")
	case h.Binding == "" || h.CommitPolicy == "none":
		return nil
	}
	honored := bindingPolicy[h.Binding]
	if h.CommitPolicy == honored {
		return nil
	}
	if honored == "" {
		return diag.HookConfig(name, version, "commit_policy", fmt.Sprintf("commit_policy '%s' is not valid for binding '%s'; binding '%s' honors commit_policy 'none' only", h.CommitPolicy, h.Binding, h.Binding))
	}
	return diag.HookConfig(name, version, "commit_policy", fmt.Sprintf("commit_policy '%s' is not valid for binding '%s'; binding '%s' honors commit_policy '%s'", h.CommitPolicy, h.Binding, h.Binding, honored))
}

// hookGrant reads a hook entry's capabilities block: task_io.read and
// conversation.read (each required in its block, never inferred),
// filesystem.scope (relative, inside the workdir) and
// limits.deadline_seconds (≥ 1).
func (l *loader) hookGrant(d string, v *yaml.Node) *HookGrant {
	g := &HookGrant{}
	readBlock := func(dst *bool) func(string, *yaml.Node) {
		return func(d string, v *yaml.Node) {
			l.mapping(d, v, []field{{key: "read", fn: func(d string, v *yaml.Node) { *dst, _ = l.boolean(d, v) }}}, "read")
		}
	}
	l.mapping(d, v, []field{
		{key: "task_io", fn: readBlock(&g.TaskIORead)},
		{key: "conversation", fn: readBlock(&g.ConversationRead)},
		{key: "filesystem", fn: func(d string, v *yaml.Node) {
			l.mapping(d, v, []field{{key: "scope", fn: func(d string, v *yaml.Node) {
				s, ok := l.str(d, v)
				if !ok {
					return
				}
				if isAbs(s) || escapes(s) {
					l.invalid(d, "'%s' must be a path inside the workdir", s)
					return
				}
				g.Scope = s
			}}})
		}},
		{key: "limits", fn: func(d string, v *yaml.Node) {
			l.mapping(d, v, []field{{key: "deadline_seconds", fn: func(d string, v *yaml.Node) {
				if n, ok := l.atLeast(d, v, 1); ok {
					g.DeadlineSecs = int(n)
				}
			}}})
		}},
	})
	return g
}
