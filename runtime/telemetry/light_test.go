package telemetry

import (
	"context"
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// A session that exports nothing makes light spans whose contexts are the
// ones the SDK's default provider would make (OTEL-1): for a root, a
// sampled remote parent with tracestate, an unsampled remote parent, and a
// local parent, the trace id, flags, tracestate and remoteness agree and
// the span id is new; a span started from a light span's context, as
// call-member does (Tracer), is light too and its child.
func TestLightSpansPropagateAsTheSDK_OTEL1(t *testing.T) {
	t.Parallel()
	p, err := Setup(context.Background(), Config{Getenv: env(nil), Session: "ses_1", Capsule: "c", Version: "1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Tracer().(*lightTracer); !ok {
		t.Fatalf("Tracer() = %T with export off, want the light tracer", p.Tracer())
	}
	sdk := sdktrace.NewTracerProvider().Tracer(Scope)
	_, local := sdk.Start(context.Background(), "parent")
	parents := map[string]context.Context{
		"root":             context.Background(),
		"sampled remote":   Remote(context.Background(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "vendor=a,other=b"),
		"unsampled remote": Remote(context.Background(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", "vendor=a"),
		"local":            oteltrace.ContextWithSpan(context.Background(), local),
	}
	for name, ctx := range parents {
		psc := oteltrace.SpanContextFromContext(ctx)
		_, want := StartTask(ctx, sdk, "c", "tsk_1", "peer")
		cctx, got := StartTask(ctx, p.Tracer(), "c", "tsk_1", "peer")
		w, g := want.SpanContext(), got.SpanContext()
		if !g.IsValid() || g.IsRemote() || g.TraceFlags() != w.TraceFlags() || g.TraceState().String() != w.TraceState().String() ||
			got.IsRecording() {
			t.Errorf("%s: light span %v (recording %v), SDK span %v", name, g, got.IsRecording(), w)
		}
		if psc.IsValid() && (g.TraceID() != psc.TraceID() || g.SpanID() == psc.SpanID()) {
			t.Errorf("%s: light span %v, parent %v: want the parent's trace and a new span id", name, g, psc)
		}
		// call-member's span, from the task's context alone.
		_, call := StartMemberCall(cctx, "worker", "mcl_1")
		cs := call.SpanContext()
		if _, ok := call.(*lightSpan); !ok || cs.TraceID() != g.TraceID() || cs.SpanID() == g.SpanID() || cs.TraceFlags() != g.TraceFlags() {
			t.Errorf("%s: member call span %T %v under %v, want a light child", name, call, cs, g)
		}
		h := http.Header{}
		propagation.TraceContext{}.Inject(oteltrace.ContextWithSpan(context.Background(), call), propagation.HeaderCarrier(h))
		back := oteltrace.SpanContextFromContext(Remote(context.Background(), h.Get("traceparent"), h.Get("tracestate")))
		if back.TraceID() != cs.TraceID() || back.SpanID() != cs.SpanID() || back.TraceFlags() != cs.TraceFlags() ||
			back.TraceState().String() != w.TraceState().String() {
			t.Errorf("%s: propagated %q %q, want the call span's context %v", name, h.Get("traceparent"), h.Get("tracestate"), cs)
		}
		EndMemberCall(call, "tsk_9", "completed", "x")
		EndTask(got, "ok", "")
	}
	// A sampler other than the default keeps the SDK, whose decisions it makes.
	q, err := Setup(context.Background(), Config{Getenv: env(map[string]string{"OTEL_TRACES_SAMPLER": "always_off"}), Session: "ses_1", Capsule: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := q.Tracer().(*lightTracer); ok {
		t.Error("OTEL_TRACES_SAMPLER set: the light tracer, want the SDK's")
	}
}

// BenchmarkTaskSpans is one task's spans — the task, a turn, an inference,
// a tool call and a member call, each started and ended — with export off:
// the SDK's provider without a processor (what a session used before) and
// the light provider, in one run.
//
//	go test -run '^$' -bench TaskSpans -benchmem ./runtime/telemetry/
func BenchmarkTaskSpans(b *testing.B) {
	light, err := Setup(context.Background(), Config{Getenv: env(nil), Session: "ses_1", Capsule: "c", Version: "1.0.0"})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		tr   oteltrace.Tracer
	}{
		{"sdk", sdktrace.NewTracerProvider().Tracer(Scope)},
		{"light", light.Tracer()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			parent := Remote(context.Background(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "")
			for b.Loop() {
				ctx, task := StartTask(parent, c.tr, "cap", "tsk_1", "peer")
				tctx, turn := StartTurn(ctx, c.tr, 0)
				_, inf := StartInference(tctx, c.tr, "openai", "gpt-x")
				EndInference(inf, 120, 30, "stop", "", "")
				_, tool := StartTool(tctx, c.tr, "bash", "call_1")
				EndTool(tool, "ok", "")
				_, call := StartMemberCall(tctx, "worker", "mcl_1")
				EndMemberCall(call, "tsk_9", "completed", "the answer")
				turn.End()
				EndTask(task, "ok", "")
			}
		})
	}
}
