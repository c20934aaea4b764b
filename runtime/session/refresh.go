package session

import (
	"path/filepath"
	"slices"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/tool/artifact"
	"github.com/murmur-go/mur/runtime/tool/plan"
	"github.com/murmur-go/mur/runtime/trace"
)

// planAndInstall builds submit-plan (tools.md §14) and, under
// capabilities.install, pull-artifact and remove-artifact (tools.md §9); the
// registry stages each only where its grant exists. Pulls read the project
// store, then the global store; murmur.lock pins them unless the session
// runs the store form, which never touches the lock (STORE-5).
func (s *Session) planAndInstall() map[string]tool.Tool {
	reg := func() *tool.Registry { return s.tools }
	var capsules *plan.Capsules
	if s.hub != nil { // PLAN-6: capsule steps delegate through the session's hub
		capsules = &plan.Capsules{Hub: s.hub, Allow: s.m.Capabilities.Spawn.Refs, Deadline: s.delegationDeadline()}
	}
	out := map[string]tool.Tool{
		tool.NameSubmitPlan: plan.New(plan.Config{Registry: reg,
			Shell:    &plan.Shell{Workdir: s.shell.Workdir, Env: s.shell.Env, Allowed: s.shell.Allowed, Sandbox: s.shell.Sandbox},
			PlansDir: filepath.Join(s.runtimeDir, "plans"), Now: s.now, Capsules: capsules}),
	}
	g := s.m.Capabilities.Install
	if g == nil {
		return out
	}
	lockDir := s.l.Project
	if s.l.Opts.StoreName != "" {
		lockDir = ""
	}
	in := artifact.NewInstaller(artifact.InstallConfig{
		Grant: *g, Stores: store.Stores{ProjectDir: s.l.Project, Home: s.cfg.Home}, LockDir: lockDir,
		RuntimeDir: s.runtimeDir, Workdir: s.workdir, Env: s.env, SessionID: s.id, Registry: reg,
	})
	out[tool.NamePullArtifact] = in.Pull()
	out[tool.NameRemoveArtifact] = in.Remove()
	return out
}

// driverSpecs is the inventory as the driver sends it.
func driverSpecs(inv []tool.Spec) []driver.ToolSpec {
	out := make([]driver.ToolSpec, 0, len(inv))
	for _, sp := range inv {
		out = append(out, driver.ToolSpec{Name: sp.Name, Description: sp.Description, InputSchema: sp.InputSchema})
	}
	return out
}

// refreshTools runs before each inference call: once pull-artifact or
// remove-artifact changed the inventory, the call sends the new one, whatever
// inference.tool_refresh says, and tools_refreshed is written first (PULL-3,
// PULL-6, RMA-3, REC-4).
func (t *taskRun) refreshTools(turn int) {
	s := t.s
	added, removed, inv, changed := s.tools.Refresh()
	if !changed {
		return
	}
	s.specs = driverSpecs(inv)
	names := make([]string, 0, len(inv))
	for _, sp := range inv {
		names = append(names, sp.Name)
	}
	slices.Sort(names)
	_, _ = s.tr.Write(trace.ToolsRefreshed{Trigger: "agent", Added: added, Removed: removed, Tools: names, Turn: turn, TaskID: t.id})
}
