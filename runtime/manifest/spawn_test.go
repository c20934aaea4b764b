package manifest

import (
	"slices"
	"testing"
)

// TestSpawnAllow: capabilities.spawn.allow is built (no W-SEC-019), its
// entries parsed into SpawnRefs in manifest order, beside
// network.authentication too (the member that delegates, tools.md DLG).
func TestSpawnAllow(t *testing.T) {
	t.Parallel()
	y := head + "capabilities: {spawn: {allow: [local/worker@0.1.0, team/critic@1.2.3-rc.1]}}\nnetwork: {authentication: {scheme: bearer}}\n"
	m, warns, err := Parse(file, []byte(y), nil)
	if err != nil {
		t.Fatalf("Parse() error = %v", err)
	}
	if len(warns) != 0 {
		t.Errorf("Parse() warnings = %v, want none", warns)
	}
	want := []SpawnRef{{"local", "worker", "0.1.0"}, {"team", "critic", "1.2.3-rc.1"}}
	if got := m.Capabilities.Spawn.Refs; !slices.Equal(got, want) {
		t.Errorf("Spawn.Refs = %v, want %v", got, want)
	}
	if got := m.Capabilities.Spawn.Refs[1].String(); got != "team/critic@1.2.3-rc.1" {
		t.Errorf("SpawnRef.String() = %q", got)
	}
}
