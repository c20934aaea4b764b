package view

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestWireReference: docs/view.md names every JSON field of every wire
// type, in the section of that type, and every event the stream writes.
func TestWireReference(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../docs/view.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, v := range []any{Snapshot{}, Status{}, Member{}, Call{}, Task{}, Step{}, Timeline{}, Item{}} {
		typ := reflect.TypeOf(v)
		head := "### " + typ.Name() + "\n"
		i := strings.Index(doc, head)
		if i < 0 {
			t.Errorf("docs/view.md has no %q section", strings.TrimSpace(head))
			continue
		}
		sec := doc[i+len(head):]
		if j := strings.Index(sec, "\n#"); j >= 0 {
			sec = sec[:j]
		}
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !strings.Contains(sec, "`"+name+"`") {
				t.Errorf("docs/view.md's %s section does not name `%s`", typ.Name(), name)
			}
		}
	}
	for _, ev := range []string{"snapshot", "member", "task", "call", "status"} {
		if !strings.Contains(doc, "`"+ev+"`") {
			t.Errorf("docs/view.md does not name the %s event", ev)
		}
	}
}
