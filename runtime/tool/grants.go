package tool

import "fmt"

// This file is tools.md §1's table: which declaration grants each
// runtime-provided tool. A tool that arrives (share-file, fetch-peer-file,
// …) adds its row here — a Grants field, its case in granted, its
// declaration text — and is wired into the session's Config.Impl; nothing
// else in this package names a tool.

// Grants are the declarations that decide which runtime-provided tools exist
// (tools.md §1). The session fills them from the manifest and formation.
type Grants struct {
	ShellAllow   []string // capabilities.shell.allow, in order
	ShellGrace   bool     // lifecycle.shell_grace_secs is set
	PlanSubmit   bool     // capabilities.plan.submit
	SwitchDriver bool     // control.agent_settings lists inference.driver
	Callees      []string // formation callees (roster order); non-empty: call-member, end-without-answer
	Install      bool     // capabilities.install under transport: http
	SpawnAllow   []string // capabilities.spawn.allow, in order; non-empty: delegate-task
	PeerFiles    bool     // exports.peer_files is declared: share-file
	PeerFetch    bool     // capabilities.peer_fetch is declared: fetch-peer-file
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
	case NameDelegateTask:
		return len(g.SpawnAllow) > 0
	case NameShareFile:
		return g.PeerFiles
	case NameFetchPeerFile:
		return g.PeerFetch
	}
	return false
}

// declarations are the tools.md §1 cells, backticks dropped, that TOOL-4 names.
var declarations = map[string]string{
	NameShareFile:         "exports.peer_files",
	NameFetchPeerFile:     "capabilities.peer_fetch",
	NameDelegateTask:      "capabilities.spawn.allow non-empty",
	NameSubmitPlan:        "capabilities.plan.submit",
	NameSwitchDriver:      "control.agent_settings: [inference.driver]",
	NamePullArtifact:      "capabilities.install, under transport: http",
	NameRemoveArtifact:    "the same grant as pull-artifact",
	NameSessionStatus:     "every agent capsule (inference: block), both transports; no script capsule",
	NameBackgroundCommand: "inference: block, non-empty capabilities.shell.allow and lifecycle.shell_grace_secs set",
}

// NotStaged is TOOL-4's refusal text for a runtime-provided name whose
// manifest staging did not write: it names the missing declaration (seed
// 000: "A call naming it anyway is refused with a message naming the
// declaration that is missing").
func NotStaged(name string) string {
	switch {
	case name == NameCallMember || name == NameEndWithoutAnswer:
		return fmt.Sprintf("'%s' is answered only for a formation member that roster.yaml lets call another; this session is not one", name)
	}
	return fmt.Sprintf("tool '%s' does not exist in this session: it exists only when the capsule declares %s", name, declarations[name])
}
