package tools

import "fmt"

// Names of the runtime-provided tools 2–12 (tools.md §1).
const (
	NameShareFile         = "share-file"
	NameFetchPeerFile     = "fetch-peer-file"
	NameDelegateTask      = "delegate-task"
	NameSubmitPlan        = "submit-plan"
	NameSwitchDriver      = "switch-driver"
	NameCallMember        = "call-member"
	NameEndWithoutAnswer  = "end-without-answer"
	NamePullArtifact      = "pull-artifact"
	NameRemoveArtifact    = "remove-artifact"
	NameSessionStatus     = "session-status"
	NameBackgroundCommand = "background-command"
)

// Provided lists tools 2–12 in tools.md §1 order: the inventory order of the
// runtime-provided tools after the shell binaries (ours), and the eleven
// reserved names (STAGE-5 lists the same names; runtime/manifest holds the
// ReservedToolNames slice E-CAP-013 uses).
var Provided = []string{
	NameShareFile, NameFetchPeerFile, NameDelegateTask, NameSubmitPlan, NameSwitchDriver,
	NameCallMember, NameEndWithoutAnswer, NamePullArtifact, NameRemoveArtifact,
	NameSessionStatus, NameBackgroundCommand,
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

// IsProvided reports whether name is one of tools 2–12.
func IsProvided(name string) bool {
	for _, n := range Provided {
		if n == name {
			return true
		}
	}
	return false
}

// NotInInventory is LOOP-9's error for a tool the session does not have.
func NotInInventory(name string) string {
	return fmt.Sprintf("tool '%s' is not in this session's inventory", name)
}

// NotSupported is TOOL-4's error for a LATER tool (2–4), and ours for a
// granted tool this build does not answer.
func NotSupported(name string) string {
	return fmt.Sprintf("tool '%s' is not supported by this build", name)
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

// LacksRequired is LOOP-9's error for an artifact's input missing required fields.
func LacksRequired(name string, missing []string) string {
	s := ""
	for i, m := range missing {
		if i > 0 {
			s += ", "
		}
		s += m
	}
	return fmt.Sprintf("tool '%s' input lacks required field(s): %s", name, s)
}
