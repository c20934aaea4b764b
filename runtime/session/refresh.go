package session

import (
	"slices"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

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
