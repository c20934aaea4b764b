package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/otlptest"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestDelegationOneTrace_OTEL1: a delegation is one trace across the parent
// and its child. The task the parent hands over by SendMessage carries the
// delegate-task span's W3C context, so the child's task span is that span's
// child and its a2a_task_received records it as traceparent_from_caller.
// The child is handed its parent's OTEL_* variables (and, of the rest, only
// DLG-3's environment), so it exports to the same receiver, named by its
// own capsule.
func TestDelegationOneTrace_OTEL1(t *testing.T) {
	rcv := otlptest.Start(t)
	w := newWorld(t)
	w.env = []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.URL, "OTEL_SERVICE_NAME="}
	w.install(t, capsule{name: "child", script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: \"CHILD-DONE\"\n"})
	dir := w.put(t, delegating("parent", "  spawn:\n    allow: [local/child@0.1.0]\n", "child", "work"))
	r, stderr, code := w.run(t, dir, "go")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	starts := of[trace.DelegationStart](t, recs)
	if d := of[trace.Delegation](t, recs); len(starts) != 1 || len(d) != 1 || d[0].Outcome != "ok" {
		t.Fatalf("delegation_start %+v, delegation %+v", starts, d)
	}
	st := starts[0]

	spans := rcv.Spans() // both sessions flushed at their end, the child's before the parent's
	byID := map[string]otlptest.Span{}
	traces := map[string]bool{}
	for _, s := range spans {
		byID[s.ID()] = s
		traces[s.TraceID()] = true
	}
	if len(traces) != 1 {
		t.Fatalf("spans carry %d trace ids, want one: %v", len(traces), traces)
	}
	one := func(session, name string) otlptest.Span {
		t.Helper()
		var got []otlptest.Span
		for _, s := range spans {
			if s.Resource["mur.session.id"] == session && s.Name == name {
				got = append(got, s)
			}
		}
		if len(got) != 1 {
			var all []string
			for _, s := range spans {
				all = append(all, s.Resource["mur.session.id"]+":"+s.Name)
			}
			t.Fatalf("session %s's spans named %q = %d, want 1; all: %v", session, name, len(got), all)
		}
		return got[0]
	}
	root := one(r.SessionID, "invoke_agent parent")
	if root.Parent() != "" {
		t.Errorf("the parent's task span has parent %s, want a root", root.Parent())
	}
	tool := one(r.SessionID, "execute_tool delegate-task")
	if turn := byID[tool.Parent()]; turn.Name != "turn" || turn.Parent() != root.ID() {
		t.Errorf("delegate-task's span parent = %q, want a turn of the parent's task", turn.Name)
	}
	task := one(st.ChildSessionID, "invoke_agent child")
	if task.Parent() != tool.ID() {
		t.Errorf("the child's task span parent = %s, want the parent's delegate-task span %s", task.Parent(), tool.ID())
	}
	if task.Resource["service.name"] != "child" {
		t.Errorf("the child's resource = %v", task.Resource)
	}

	crecs := records(t, w.childRecords(t, filepath.Join(r.Workdir, st.ChildWorkdir), st.ChildSessionID))
	rcvd := of[trace.A2ATaskReceived](t, crecs)
	wantTP := fmt.Sprintf("00-%s-%s-01", tool.TraceID(), tool.ID())
	if len(rcvd) != 1 || rcvd[0].TraceparentFromCaller == nil || *rcvd[0].TraceparentFromCaller != wantTP {
		t.Errorf("the child's a2a_task_received = %+v, want traceparent_from_caller %s", rcvd, wantTP)
	}
	for _, s := range spans {
		if !strings.HasPrefix(s.Resource["mur.session.id"], "ses_") {
			t.Errorf("span %q from a resource without a session: %v", s.Name, s.Resource)
		}
	}
}
