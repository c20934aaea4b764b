package manifest

import "slices"

// The names of the tools the runtime provides itself (tools.md §1, tools
// 2–12). They are declared once, here: runtime/tool names its tools by them
// and takes ReservedToolNames as its list of runtime-provided tools.
const (
	ToolShareFile         = "share-file"
	ToolFetchPeerFile     = "fetch-peer-file"
	ToolDelegateTask      = "delegate-task"
	ToolSubmitPlan        = "submit-plan"
	ToolSwitchDriver      = "switch-driver"
	ToolCallMember        = "call-member"
	ToolEndWithoutAnswer  = "end-without-answer"
	ToolPullArtifact      = "pull-artifact"
	ToolRemoveArtifact    = "remove-artifact"
	ToolSessionStatus     = "session-status"
	ToolBackgroundCommand = "background-command"
)

// ReservedToolNames are the eleven names of the tools the runtime provides
// itself, in tools.md STAGE-5 order (which is §1's order, the inventory order
// of the runtime-provided tools). An artifact whose tool name (after the
// last '/') is one of them refuses with E-CAP-013 (MAN-9, STAGE-6), whatever
// grants are declared. Callers must not modify the slice.
var ReservedToolNames = []string{
	ToolShareFile,
	ToolFetchPeerFile,
	ToolDelegateTask,
	ToolSubmitPlan,
	ToolSwitchDriver,
	ToolCallMember,
	ToolEndWithoutAnswer,
	ToolPullArtifact,
	ToolRemoveArtifact,
	ToolSessionStatus,
	ToolBackgroundCommand,
}

// IsReserved reports whether toolName is one of ReservedToolNames.
func IsReserved(toolName string) bool { return slices.Contains(ReservedToolNames, toolName) }
