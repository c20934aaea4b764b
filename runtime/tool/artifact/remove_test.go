package artifact

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/tool"
)

func TestRemovePulled_RMA1_RMA3(t *testing.T) {
	f := newPullFix(t, toolsGrant)
	f.install(t, "tool-edit", "1.0.0", "tool", store.ScopeGlobal, "")
	if res := f.call(t, tool.NamePullArtifact, "murmur/tool-edit"); res.IsError() {
		t.Fatalf("pull: %+v", res)
	}
	f.reg.Refresh()
	for _, name := range []string{"murmur/tool-edit", "tool-edit"} {
		t.Run(name, func(t *testing.T) {
			res := f.call(t, tool.NameRemoveArtifact, name)
			content, _ := res.Content(tool.NameRemoveArtifact)
			want := "<untrusted-content source=tool:remove-artifact>\n" + `{"artifact":"murmur/tool-edit","removed":true}` +
				"\n</untrusted-content>\ntool-edit is gone from your tool list from your next turn; a call to it is refused."
			if res.IsError() || content != want || len(res.Records) != 0 {
				t.Errorf("content =\n%s\nwant\n%s\nrecords %v", content, want, res.Records)
			}
			if _, ok := f.lock(t).Find("tool-edit"); ok {
				t.Error("the murmur.lock entry is still there")
			}
			if _, err := os.Stat(filepath.Join(f.runtimeDir, "tools", "tool-edit")); !os.IsNotExist(err) {
				t.Errorf("tools/tool-edit is still there: %v", err)
			}
			// RMA-3: a later call, even in the same turn, is refused.
			if self, refusal := f.reg.Lookup("tool-edit"); self != nil ||
				refusal != "tool 'tool-edit' was removed from this session; it can no longer be called" {
				t.Errorf("Lookup after removal = %v, %q", self, refusal)
			}
			added, removed, inv, changed := f.reg.Refresh()
			if !changed || len(added) != 0 || strings.Join(removed, ",") != "tool-edit" {
				t.Errorf("Refresh = %v, %v, %v", added, removed, changed)
			}
			for _, s := range inv {
				if s.Name == "tool-edit" {
					t.Error("the inventory still lists tool-edit")
				}
			}
			// Pulled again, it is callable again.
			if res := f.call(t, tool.NamePullArtifact, "murmur/tool-edit"); res.IsError() {
				t.Fatalf("pull again: %+v", res)
			}
			if _, refusal := f.reg.Lookup("tool-edit"); refusal != "" {
				t.Errorf("after a new pull: %s", refusal)
			}
			f.reg.Refresh()
		})
	}
}

func TestRemoveNotInstalled_RMA1(t *testing.T) {
	f := newPullFix(t, toolsGrant)
	for _, name := range []string{"murmur/absent", "bash", "session-status", "other/tool-edit"} {
		res := f.call(t, tool.NameRemoveArtifact, name)
		want := `{"artifact":"` + name + `","removed":false}`
		if res.IsError() || res.Data != want || len(res.Notes) != 0 {
			t.Errorf("remove %s = %+v, want data %s and no note", name, res, want)
		}
	}
	if _, _, _, changed := f.reg.Refresh(); changed {
		t.Error("removing nothing changed the inventory")
	}
}

func TestRemoveRefusals_RMA2(t *testing.T) {
	declared := &Native{Ref: "local/grep", Name: "grep"}
	f := newPullFix(t, toolsGrant, declared)
	r := f.install(t, "tool-edit", "1.0.0", "tool", store.ScopeGlobal, "")
	pin := store.LockEntry{Name: "tool-edit", ResolvedVersion: "1.0.0", Runtime: "tool", SHA256: r.SHA256, Origin: store.OriginOperator}
	if err := store.WriteLock(f.project, &store.Lock{Artifacts: []store.LockEntry{pin}}); err != nil {
		t.Fatal(err)
	}
	if res := f.call(t, tool.NamePullArtifact, "murmur/tool-edit"); res.IsError() {
		t.Fatalf("pull: %+v", res)
	}
	tests := map[string]string{
		"grep":             "not-removable: local/grep is declared in murmur.yaml; only an artifact this session pulled can be removed",
		"local/grep":       "not-removable: local/grep is declared in murmur.yaml; only an artifact this session pulled can be removed",
		"murmur/tool-edit": "not-removable: murmur.lock pins tool-edit with origin: operator; only a pin pull-artifact made can be removed",
		"{}":               "'remove-artifact' needs artifact",
	}
	for name, want := range tests {
		in, _ := json.Marshal(map[string]string{"artifact": name})
		if name == "{}" {
			in = []byte(name)
		}
		self, _ := f.reg.Lookup(tool.NameRemoveArtifact)
		res := self.Call(context.Background(), &tool.CallContext{}, in)
		if !res.Refused || res.Data != want {
			t.Errorf("remove %s = %q, want refusal %q", name, res.Data, want)
		}
	}
	if _, refusal := f.reg.Lookup("tool-edit"); refusal != "" {
		t.Errorf("a refused removal took tool-edit out: %s", refusal)
	}
	if e, _ := f.lock(t).Find("tool-edit"); e != pin {
		t.Errorf("the operator's pin changed: %+v", e)
	}
}
