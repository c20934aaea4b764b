package docs

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/wire"
)

// tags are a struct's JSON field names, in declaration order.
func tags(v any) []string {
	var out []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// section returns the lines of delegation.md under heading "## <h>".
func section(t *testing.T, text, h string) []string {
	t.Helper()
	_, after, ok := strings.Cut(text, "\n## "+h+"\n")
	if !ok {
		t.Fatalf("delegation.md has no section %q", h)
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		after = after[:i]
	}
	return strings.Split(after, "\n")
}

var firstCell = regexp.MustCompile("^\\| `([a-z_A-Z]+)` \\|")

// TestDelegationReference: delegation.md's completion.json table lists
// wire.Completion's fields in order, its records table each record's
// fields, and its environment table the variables a child gets.
func TestDelegationReference(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("delegation.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	var fields []string
	for _, l := range section(t, text, "`completion.json`") {
		if m := firstCell.FindStringSubmatch(l); m != nil {
			fields = append(fields, m[1])
		}
	}
	if want := tags(wire.Completion{}); !slices.Equal(fields, want) {
		t.Errorf("completion.json table lists %v, want %v", fields, want)
	}
	records := map[string]any{"delegation_start": trace.DelegationStart{}, "delegation": trace.Delegation{}, "spawner_ended": trace.SpawnerEnded{}}
	seen := 0
	for _, l := range section(t, text, "Trace records") {
		m := firstCell.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		rec, ok := records[m[1]]
		if !ok {
			t.Errorf("records table names %s", m[1])
			continue
		}
		seen++
		var want []string
		for _, f := range tags(rec) {
			want = append(want, "`"+f+"`")
		}
		if cell := strings.TrimSuffix(strings.SplitN(l, "| ", 3)[2], " |"); cell != strings.Join(want, ", ") {
			t.Errorf("%s's fields are %q, want %q", m[1], cell, strings.Join(want, ", "))
		}
	}
	if seen != len(records) {
		t.Errorf("records table lists %d records, want %d", seen, len(records))
	}
	if !strings.Contains(text, "| `"+spawn.EnvSpawner+"` |") || !strings.Contains(text, "| `"+spawn.EnvLifeline+"` | `3`") {
		t.Errorf("the environment table lacks %s or %s", spawn.EnvSpawner, spawn.EnvLifeline)
	}
}
