package launcher

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-go/mur/launcher/roster"
)

// TestFirstLineCancel: the channel's first line carries "cancel": "cascade"
// only under the roster's cancel: cascade; under off it is
// the line formations.md §17 describes, byte for byte as before.
func TestFirstLineCancel(t *testing.T) {
	t.Parallel()
	lead := roster.Admitted{Member: roster.Member{Name: "lead", Entry: true}, Callees: []string{"worker"}}
	f := &roster.Formation{Members: []roster.Admitted{lead, {Member: roster.Member{Name: "worker"}}},
		Edges: []roster.Edge{{From: "lead", To: "worker"}}}
	c, err := mint(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	for cancel, want := range map[string]string{roster.CancelOff: "", roster.CancelCascade: "cascade"} {
		line := c.firstLine(&f.Members[0], cancel, 42, "7")
		var got map[string]any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatal(err)
		}
		v, has := got["cancel"]
		if want == "" && has || want != "" && v != want {
			t.Errorf("cancel %s: first line %s", cancel, line)
		}
		if !strings.HasSuffix(string(line), "}\n") {
			t.Errorf("first line %q does not end in one newline", line)
		}
	}
}
