package tool

import (
	"fmt"

	"github.com/murmur-go/mur/runtime/manifest"
)

// Names of the runtime-provided tools 2–12 (tools.md §1), as
// runtime/manifest declares them: one list for staging and for E-CAP-013.
const (
	NameShareFile         = manifest.ToolShareFile
	NameFetchPeerFile     = manifest.ToolFetchPeerFile
	NameDelegateTask      = manifest.ToolDelegateTask
	NameSubmitPlan        = manifest.ToolSubmitPlan
	NameSwitchDriver      = manifest.ToolSwitchDriver
	NameCallMember        = manifest.ToolCallMember
	NameEndWithoutAnswer  = manifest.ToolEndWithoutAnswer
	NamePullArtifact      = manifest.ToolPullArtifact
	NameRemoveArtifact    = manifest.ToolRemoveArtifact
	NameSessionStatus     = manifest.ToolSessionStatus
	NameBackgroundCommand = manifest.ToolBackgroundCommand
)

// NameRequestInput is the built-in artifact the runtime answers itself
// (input.md INP-1); unlike tools 2–12 its name is not reserved, and it exists
// only where artifacts[] declares it.
const NameRequestInput = manifest.ToolRequestInput

// Provided lists tools 2–12 in tools.md §1 order: the inventory order of the
// runtime-provided tools after the shell binaries, and the eleven reserved
// names (STAGE-5). It is manifest.ReservedToolNames; callers must not modify
// it.
var Provided = manifest.ReservedToolNames

// IsProvided reports whether name is one of tools 2–12.
func IsProvided(name string) bool { return manifest.IsReserved(name) }

// NotInInventory is LOOP-9's error for a tool the session does not have.
func NotInInventory(name string) string {
	return fmt.Sprintf("tool '%s' is not in this session's inventory", name)
}

// NotSupported is TOOL-4's error for a LATER tool (2–4), and ours for a
// granted tool this build does not answer.
func NotSupported(name string) string {
	return fmt.Sprintf("tool '%s' is not supported by this build", name)
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
