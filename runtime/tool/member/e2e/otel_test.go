package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/otlptest"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestOneTraceAcrossMembers_OTEL1 is one trace across a formation (OTEL-1): a formation of
// three processes, lead → mid → leaf, exports to a real OTLP/HTTP receiver
// the test runs; every span of the run has one trace id, each member's task
// span is parented on its caller's call-member span, and each callee's
// a2a_task_received records that span as traceparent_from_caller.
func TestOneTraceAcrossMembers_OTEL1(t *testing.T) {
	t.Parallel()
	rcv := otlptest.Start(t)
	p := newProject(t)
	p.env = []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.URL, "OTEL_SERVICE_NAME="}
	mid := capsule{name: "mid", extra: peerExtra, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: call-member, input: {member: leaf, task: "{{task}}"}}]
      - text: "waiting for leaf"
      - text: "mid: {{member_answer}}"
`}
	leaf := capsule{name: "leaf", extra: peerExtra, script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: \"leaf did it\"\n"}
	p.install(t, leadCalls("mid"), mid, leaf)
	p.roster(t, []string{"lead", "mid", "leaf"}, "lead:mid", "mid:leaf")
	l := p.start(t, "trace me")
	if code := l.wait(t); code != 0 {
		t.Fatalf("mur run --roster exited %d; stderr:\n%s", code, l.stderr.String())
	}
	want(t, "lead result", result(t, l.entry.RecordsDir), "lead: mid: leaf did it")

	spans := rcv.Spans() // every member flushed at its session's end, before the launcher returned
	if len(spans) == 0 {
		t.Fatal("the receiver got no spans")
	}
	traces := map[string]bool{}
	byID := map[string]otlptest.Span{}
	for _, s := range spans {
		traces[s.TraceID()] = true
		byID[s.ID()] = s
	}
	if len(traces) != 1 {
		t.Fatalf("spans carry %d trace ids, want one: %v", len(traces), traces)
	}
	member := func(s otlptest.Span) string { return s.Resource["mur.member.name"] }
	find := func(who, name string) []otlptest.Span {
		var out []otlptest.Span
		for _, s := range spans {
			if member(s) == who && s.Name == name {
				out = append(out, s)
			}
		}
		return out
	}
	one := func(who, name string) otlptest.Span {
		t.Helper()
		got := find(who, name)
		if len(got) != 1 {
			t.Fatalf("%s's spans named %q = %d, want 1; all: %s", who, name, len(got), names(spans))
		}
		return got[0]
	}
	// The chain of parents up from s, by span name, until a span of another
	// member or the root.
	chain := func(s otlptest.Span) string {
		var names []string
		for {
			names = append(names, s.Name)
			p, ok := byID[s.Parent()]
			if !ok || member(p) != member(s) {
				return strings.Join(names, " < ")
			}
			s = p
		}
	}
	for _, who := range []string{"lead", "mid", "leaf"} {
		task := one(who, "invoke_agent e2e-"+who)
		if task.Resource["service.name"] != "e2e-"+who || task.Resource["mur.formation.id"] != l.form.FormationID ||
			!strings.HasPrefix(task.Resource["mur.session.id"], "ses_") || task.Resource["mur.capsule.version"] != "0.1.0" {
			t.Errorf("%s's resource = %v", who, task.Resource)
		}
		if task.Kind.String() != "SPAN_KIND_SERVER" || task.Attr("mur.task.ending") != "ok" {
			t.Errorf("%s's task span kind %v ending %q, want a server span ending ok", who, task.Kind, task.Attr("mur.task.ending"))
		}
		inf := find(who, "chat scripted")
		if len(inf) == 0 || inf[0].Attr("gen_ai.operation.name") != "chat" || inf[0].Attr("gen_ai.provider.name") != "mur.scripted" ||
			inf[0].Attr("gen_ai.usage.output_tokens") == "" {
			t.Errorf("%s's inference spans = %v", who, inf)
		}
	}
	if root := one("lead", "invoke_agent e2e-lead"); root.Parent() != "" {
		t.Errorf("the lead's task span has parent %s, want a root", root.Parent())
	}
	for _, edge := range [][2]string{{"lead", "mid"}, {"mid", "leaf"}} {
		caller, callee := edge[0], edge[1]
		call := one(caller, "call-member "+callee)
		want(t, caller+"'s call span chain", chain(call), "call-member "+callee+" < execute_tool call-member < turn < invoke_agent e2e-"+caller)
		if call.Kind.String() != "SPAN_KIND_CLIENT" || call.Attr("mur.call.ending") != "completed" {
			t.Errorf("%s's call span kind %v ending %q", caller, call.Kind, call.Attr("mur.call.ending"))
		}
		task := one(callee, "invoke_agent e2e-"+callee)
		if task.Parent() != call.ID() {
			t.Errorf("%s's task span parent = %s, want %s's call-member span %s", callee, task.Parent(), caller, call.ID())
		}
		_, _, _, dir := l.peer(t, callee)
		rcvd := of[trace.A2ATaskReceived](t, records(t, dir))
		wantTP := fmt.Sprintf("00-%s-%s-01", call.TraceID(), call.ID())
		if len(rcvd) != 1 || rcvd[0].TraceparentFromCaller == nil || *rcvd[0].TraceparentFromCaller != wantTP {
			t.Errorf("%s's a2a_task_received = %+v, want traceparent_from_caller %s", callee, rcvd, wantTP)
		}
	}
	if w := find("lead", "wait for answers"); len(w) != 1 || byID[w[0].Parent()].Name != "invoke_agent e2e-lead" {
		t.Errorf("the lead's wait spans = %v, want one under its task span", w)
	}

	// FCLI-8: the formation as one timeline, from any directory.
	cmd := exec.Command(mur, "trace", "show", l.form.FormationID)
	cmd.Dir, cmd.Env = p.home, p.environ()
	out, errb, code := testmur.Exec(t, cmd)
	if code != 0 {
		t.Fatalf("mur trace show %s = %d: %s", l.form.FormationID, code, errb)
	}
	for _, want := range []string{"── Formation " + l.form.FormationID + " (ended) ──", "  lead  entry  " + l.entry.SessionID + "  ok ",
		"  mid   peer ", "  leaf  peer ", "  lead  → mid  call mcl_", "  mid   → leaf  call mcl_", "  leaf  task ",
		"  mid   ← leaf  call mcl_", "  lead  ← mid  call mcl_", ": completed ", "  lead  session ended ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("mur trace show <frm> lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "  mid   ← leaf") > strings.Index(out, "  lead  ← mid") {
		t.Errorf("the timeline is not in time order:\n%s", out)
	}
	// A session by its full id, from a directory that is not its workdir.
	_, mses, _, _ := l.peer(t, "mid")
	cmd = exec.Command(mur, "trace", "show", mses)
	cmd.Dir, cmd.Env = p.home, p.environ()
	if out, errb, code := testmur.Exec(t, cmd); code != 0 || !strings.Contains(out, "session:    "+mses) {
		t.Errorf("mur trace show %s from elsewhere = %d, %s%s", mses, code, out, errb)
	}
}

func names(spans []otlptest.Span) string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Resource["mur.member.name"]+":"+s.Name)
	}
	return strings.Join(out, ", ")
}

// TestOneTraceWithoutExport_OTEL1: with nothing exported, the members'
// spans record nothing but still carry trace context: lead → mid → leaf,
// each callee's a2a_task_received names a sampled W3C traceparent from its
// caller, mid's and leaf's in one trace, each naming its own caller's span.
func TestOneTraceWithoutExport_OTEL1(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	mid := capsule{name: "mid", extra: peerExtra, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: call-member, input: {member: leaf, task: "{{task}}"}}]
      - text: "waiting for leaf"
      - text: "mid: {{member_answer}}"
`}
	leaf := capsule{name: "leaf", extra: peerExtra, script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: \"leaf did it\"\n"}
	p.install(t, leadCalls("mid"), mid, leaf)
	p.roster(t, []string{"lead", "mid", "leaf"}, "lead:mid", "mid:leaf")
	l := p.start(t, "trace me")
	if code := l.wait(t); code != 0 {
		t.Fatalf("mur run --roster exited %d; stderr:\n%s", code, l.stderr.String())
	}
	want(t, "lead result", result(t, l.entry.RecordsDir), "lead: mid: leaf did it")
	tps := map[string]string{}
	for _, callee := range []string{"mid", "leaf"} {
		_, _, _, dir := l.peer(t, callee)
		rcvd := of[trace.A2ATaskReceived](t, records(t, dir))
		if len(rcvd) != 1 || rcvd[0].TraceparentFromCaller == nil {
			t.Fatalf("%s's a2a_task_received = %+v, want one with traceparent_from_caller", callee, rcvd)
		}
		tp := *rcvd[0].TraceparentFromCaller
		parts := strings.Split(tp, "-")
		if len(parts) != 4 || parts[0] != "00" || len(parts[1]) != 32 || len(parts[2]) != 16 || parts[3] != "01" ||
			strings.Trim(parts[1], "0") == "" || strings.Trim(parts[2], "0") == "" {
			t.Errorf("%s's traceparent_from_caller = %q, want a sampled W3C traceparent", callee, tp)
		}
		tps[callee] = tp
	}
	m, lf := strings.Split(tps["mid"], "-"), strings.Split(tps["leaf"], "-")
	if len(m) == 4 && len(lf) == 4 && (m[1] != lf[1] || m[2] == lf[2]) {
		t.Errorf("mid got %s, leaf got %s: want one trace id and two call spans", tps["mid"], tps["leaf"])
	}
}
