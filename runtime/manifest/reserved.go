package manifest

// ReservedToolNames are the eleven names of the tools the runtime provides
// itself, in tools.md STAGE-5 order. An artifact whose tool name (after the
// last '/') is one of them refuses with E-CAP-013 (MAN-9, STAGE-6), whatever
// grants are declared. Callers must not modify the slice.
var ReservedToolNames = []string{
	"share-file",
	"fetch-peer-file",
	"delegate-task",
	"submit-plan",
	"switch-driver",
	"call-member",
	"end-without-answer",
	"pull-artifact",
	"remove-artifact",
	"session-status",
	"background-command",
}

// IsReserved reports whether toolName is one of ReservedToolNames.
func IsReserved(toolName string) bool {
	for _, n := range ReservedToolNames {
		if n == toolName {
			return true
		}
	}
	return false
}
