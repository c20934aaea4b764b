package manifest

import (
	"fmt"

	"github.com/murmur-go/mur/runtime/diag"
)

// ToolRequestInput is the one artifact the runtime answers itself (input.md
// INP-1): murmur ships it as a WASM tool, which mur does not run. Unlike tools
// 2–12 its name is not reserved (tools.md STAGE-5); it exists only where
// artifacts[] declares it.
const ToolRequestInput = "murmur-tool-request-input"

// HookCompact is the built-in compaction hook: murmur ships it as a WASM
// hook; mur answers on-compaction itself where artifacts[] declares it.
const HookCompact = "murmur-hook-compact"

// Builtin reports whether a is built in (INP-1): the tool name
// murmur-tool-request-input with runtime tool, or murmur-hook-compact with
// runtime hook, at any exact version. A
// built-in entry is never resolved in a store, hashed or locked (no
// STORE-3..6), installed or listed; its config is accepted and ignored.
func (a Artifact) Builtin() bool {
	return a.Name == ToolRequestInput && a.Runtime == "tool" || a.Name == HookCompact && a.Runtime == "hook"
}

// CompactHook reports whether artifacts[] declares the built-in compaction hook.
func (m *Manifest) CompactHook() bool {
	for _, a := range m.Artifacts {
		if a.Builtin() && a.Name == HookCompact {
			return true
		}
	}
	return false
}

// StoreArtifacts returns the artifacts the stores resolve, install and lock:
// artifacts[] in manifest order without the built-in entry (INP-1).
func (m *Manifest) StoreArtifacts() []Artifact {
	var out []Artifact
	for _, a := range m.Artifacts {
		if !a.Builtin() {
			out = append(out, a)
		}
	}
	return out
}

// RequestInput returns the built-in request-input entry, if artifacts[]
// declares it (INP-1).
func (m *Manifest) RequestInput() (Artifact, bool) {
	for _, a := range m.Artifacts {
		if a.Builtin() && a.Name == ToolRequestInput {
			return a, true
		}
	}
	return Artifact{}, false
}

// RequestInputUnserved is INP-2's E-MAN-003 for artifacts[i], the built-in
// request-input entry, under lifecycle.task_acceptance none, whose door
// takes no SendMessage and so no reply (door.md TASK-7). file is the
// manifest as diagnostics name it; an override names its flag instead.
func RequestInputUnserved(file string, i int) *diag.Diagnostic {
	return diag.ManInvalid(file, fmt.Sprintf("artifacts[%d]", i), requestInputUnserved)
}

// requestInputUnserved is INP-2's fault text.
const requestInputUnserved = ToolRequestInput + " needs a door that takes replies, and lifecycle.task_acceptance none serves no SendMessage"

// RequestInputIndex returns the index in artifacts[] of the built-in entry,
// -1 when none is declared.
func (m *Manifest) RequestInputIndex() int {
	for i, a := range m.Artifacts {
		if a.Builtin() && a.Name == ToolRequestInput {
			return i
		}
	}
	return -1
}
