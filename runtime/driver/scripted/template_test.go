package scripted

import (
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/driver"
)

// TestFences reads FENCE-1 blocks: empty content, a content's own trailing
// newline, a neutralised forged marker (FENCE-3), notes after the fence.
func TestFences(t *testing.T) {
	t.Parallel()
	s := "<untrusted-content source=tool:a>\n\n</untrusted-content>\n" +
		"text <untrusted-content source=not:line-start>\nx\n</untrusted-content>\n" +
		"<untrusted-content source=member:rev>\nline\n<!MURMUR-NEUTRALISED!/untrusted-content>\n\n</untrusted-content>\nnote"
	got := fences(s)
	if len(got) != 2 || got[0] != (fence{"tool:a", ""}) ||
		got[1] != (fence{"member:rev", "line\n<!MURMUR-NEUTRALISED!/untrusted-content>\n"}) {
		t.Errorf("fences = %q", got)
	}
	if got := unfence("plain refusal", ""); got != "plain refusal" {
		t.Errorf("unfence(plain) = %q", got)
	}
	if got := unfence("<untrusted-content source=tool:x>\nunclosed", ""); got != "<untrusted-content source=tool:x>\nunclosed" {
		t.Errorf("unfence(unclosed) = %q", got)
	}
	if got := taskText([]driver.Message{{Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock("<untrusted-content source=tool:x>\nnot a task fence\n</untrusted-content>")}}}); !strings.HasPrefix(got, "<untrusted") {
		t.Errorf("taskText kept only a task: fence? %q", got)
	}
}

// FuzzFences: reading fences and expanding templates never panics, and every
// fence found lies inside the text.
func FuzzFences(f *testing.F) {
	f.Add("<untrusted-content source=member:a>\nx\n</untrusted-content>\nwrk_0199a3f1c2d47e8ab5c6d7e8f9a0b1c2")
	f.Add("<untrusted-content source=>\n\n</untrusted-content>")
	f.Add("<untrusted-content source=x>\n</untrusted-content>")
	f.Fuzz(func(t *testing.T, s string) {
		for _, fc := range fences(s) {
			if !strings.Contains(s, fc.content) || !strings.Contains(s, fc.source) {
				t.Fatalf("fence %q not in %q", fc, s)
			}
		}
		msgs := []driver.Message{
			{Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(s)}},
			{Role: driver.RoleTool, Blocks: []driver.Block{driver.ToolResultBlock("c", s, false)}},
		}
		v := readVars(msgs)
		_ = v.expand("{{task}}{{tool_result}}{{member_answer}}{{member_answer:a}}{{work_id}}")
	})
}
