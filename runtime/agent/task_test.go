package agent

import (
	"encoding/json"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/tool"
)

// TestTaskText_LOOP21: the parts in order, data as compact JSON, joined by
// "\n"; fenced under task:<origin> when the task is untrusted.
func TestTaskText_LOOP21(t *testing.T) {
	url := "https://example.test/a"
	m := a2a.Message{Parts: []a2a.Part{a2a.TextPart("first"), {Data: json.RawMessage(`{ "a" : 1 }`)}, {URL: &url}}}
	want := "first\n{\"a\":1}\nhttps://example.test/a"
	if got := PartsText(m); got != want {
		t.Errorf("PartsText = %q, want %q", got, want)
	}
	if got := TaskText(m, tasktable.Provenance{Origin: a2a.OriginUser, Trust: a2a.TrustTrusted}); got != want {
		t.Errorf("trusted TaskText = %q, want %q", got, want)
	}
	fenced := tool.Fence(tool.SourceTask+string(a2a.OriginPeer), want)
	if got := TaskText(m, tasktable.Provenance{Origin: a2a.OriginPeer, Trust: a2a.TrustUntrusted}); got != fenced {
		t.Errorf("untrusted TaskText = %q, want %q", got, fenced)
	}
	if got := PartsBytes(m); got != len("first")+len(`{ "a" : 1 }`)+len(url) {
		t.Errorf("PartsBytes = %d", got)
	}
	for o, want := range map[a2a.Origin]string{a2a.OriginUser: "user", a2a.OriginPeer: "peer", a2a.OriginCompletion: "bg"} {
		if got := Lane(o); got != want {
			t.Errorf("Lane(%s) = %q, want %q", o, got, want)
		}
	}
}
