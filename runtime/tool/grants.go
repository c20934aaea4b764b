package tool

import "fmt"

// This file is tools.md §1's table: which declaration grants each
// runtime-provided tool. A tool that arrives (delegate-task, share-file,
// fetch-peer-file, …) adds its row here — a Grants field, its case in
// granted, its declaration text — leaves later, and is wired into the
// session's Config.Impl; nothing else in this package names a tool.

// Grants are the declarations that decide which runtime-provided tools exist
// (tools.md §1). The session fills them from the manifest and formation.
type Grants struct {
	ShellAllow   []string // capabilities.shell.allow, in order
	ShellGrace   bool     // lifecycle.shell_grace_secs is set
	PlanSubmit   bool     // capabilities.plan.submit
	SwitchDriver bool     // control.agent_settings lists inference.driver
	Callees      []string // formation callees (roster order); non-empty: call-member, end-without-answer
	Install      bool     // capabilities.install under transport: http
}

// granted reports whether name's §1 grant is present.
func granted(g Grants, name string) bool {
	switch name {
	case NameSubmitPlan:
		return g.PlanSubmit
	case NameSwitchDriver:
		return g.SwitchDriver
	case NameCallMember, NameEndWithoutAnswer:
		return len(g.Callees) > 0
	case NamePullArtifact, NameRemoveArtifact:
		return g.Install
	case NameSessionStatus:
		return true // every agent capsule
	case NameBackgroundCommand:
		return len(g.ShellAllow) > 0 && g.ShellGrace
	}
	return false // 2–4: LATER
}

// later are tools 2–4 (LATER): never staged (tools.md scope cuts).
var later = map[string]bool{NameShareFile: true, NameFetchPeerFile: true, NameDelegateTask: true}

// declarations are the tools.md §1 cells, backticks dropped, that TOOL-4 names.
var declarations = map[string]string{
	NameSubmitPlan:        "capabilities.plan.submit",
	NameSwitchDriver:      "control.agent_settings: [inference.driver]",
	NamePullArtifact:      "capabilities.install, under transport: http",
	NameRemoveArtifact:    "the same grant as pull-artifact",
	NameSessionStatus:     "every agent capsule (inference: block), both transports; no script capsule",
	NameBackgroundCommand: "inference: block, non-empty capabilities.shell.allow and lifecycle.shell_grace_secs set",
}

// NotStaged is TOOL-4's refusal text for a runtime-provided name whose
// manifest staging did not write.
func NotStaged(name string) string {
	switch {
	case later[name]:
		return NotSupported(name)
	case name == NameCallMember || name == NameEndWithoutAnswer:
		return fmt.Sprintf("'%s' is answered only for a formation member that roster.yaml lets call another; this session is not one", name)
	}
	return fmt.Sprintf("tool '%s' does not exist in this session: it exists only when the capsule declares %s", name, declarations[name])
}
