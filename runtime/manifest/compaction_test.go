package manifest

import (
	"strings"
	"testing"
)

// TestCompactionBlock: inference.compaction's keys and defaults, its
// refusals, and its one warning under transport: process.
func TestCompactionBlock(t *testing.T) {
	t.Parallel()
	m, warns, err := Parse(file, []byte(head), nil)
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse() = %v, %v", warns, err)
	}
	if c := m.Inference.Compaction; c != (Compaction{Threshold: DefaultCompactionThreshold}) {
		t.Errorf("default compaction = %+v", c)
	}
	m, warns, err = Parse(file, []byte(head+"  compaction: {threshold: 0.85, model: small, system_prompt: \"keep X\\n\", dump_summaries: true}\n"), nil)
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse() = %v, %v", warns, err)
	}
	if c := m.Inference.Compaction; c != (Compaction{Threshold: 0.85, Model: "small", SystemPrompt: "keep X\n", DumpSummaries: true}) {
		t.Errorf("compaction = %+v", c)
	}
	for _, c := range []struct{ name, yaml, want string }{
		{"threshold_zero", "  compaction: {threshold: 0}\n", "inference.compaction.threshold: must be a number greater than 0 and at most 1, not '0'"},
		{"threshold_over", "  compaction: {threshold: 1.5}\n", "inference.compaction.threshold: must be a number greater than 0 and at most 1, not '1.5'"},
		{"threshold_text", "  compaction: {threshold: most}\n", "inference.compaction.threshold: must be a number greater than 0 and at most 1, not 'most'"},
		{"prompt_twice", "  compaction: {system_prompt: a, system_prompt_file: p.md}\n", "inference.compaction.system_prompt_file: declare system_prompt or system_prompt_file, not both"},
	} {
		_, _, err := Parse(file, []byte(head+c.yaml), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	_, warns, err = Parse(file, []byte(proc+"  compaction: {threshold: 0.5}\n"), nil)
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0].Error(), "'inference.compaction' does nothing under inference.transport: process: the harness keeps and compacts its own conversation") {
		t.Errorf("under process: %v, %v", warns, err)
	}
}
