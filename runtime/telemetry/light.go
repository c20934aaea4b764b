package telemetry

import (
	"context"
	"encoding/binary"
	"math/rand/v2"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	oteltrace "go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// lightProvider makes the spans of a session that exports none: each
// carries a span context exactly as the SDK's default sampler,
// ParentBased(AlwaysSample), would give it — the parent's trace id (a new
// one at a root), a new span id, the parent's sampled flag (set at a root)
// and tracestate — so the traceparent every request propagates is the one
// the SDK would send (OTEL-1), but nothing about the span is recorded.
type lightProvider struct {
	embedded.TracerProvider
	tracer *lightTracer
}

func newLightProvider() *lightProvider {
	p := &lightProvider{}
	p.tracer = &lightTracer{provider: p}
	return p
}

func (p *lightProvider) Tracer(string, ...oteltrace.TracerOption) oteltrace.Tracer { return p.tracer }

type lightTracer struct {
	embedded.Tracer
	provider *lightProvider
}

// Start reads from opts only whether the span is a new root.
func (t *lightTracer) Start(ctx context.Context, _ string, opts ...oteltrace.SpanStartOption) (context.Context, oteltrace.Span) {
	if len(opts) > 0 {
		if cfg := oteltrace.NewSpanStartConfig(opts...); cfg.NewRoot() {
			return t.start(ctx, oteltrace.SpanContext{})
		}
	}
	return t.start(ctx, oteltrace.SpanContextFromContext(ctx))
}

func (t *lightTracer) start(ctx context.Context, psc oteltrace.SpanContext) (context.Context, oteltrace.Span) {
	scc := oteltrace.SpanContextConfig{TraceID: psc.TraceID(), SpanID: newSpanID(), TraceState: psc.TraceState()}
	if !scc.TraceID.IsValid() {
		scc.TraceID = newTraceID()
	}
	if !psc.IsValid() || psc.IsSampled() {
		scc.TraceFlags = psc.TraceFlags() | oteltrace.FlagsSampled
	} else {
		scc.TraceFlags = psc.TraceFlags() &^ oteltrace.FlagsSampled
	}
	s := &lightSpan{sc: oteltrace.NewSpanContext(scc), provider: t.provider}
	return oteltrace.ContextWithSpan(ctx, s), s
}

func newTraceID() (id oteltrace.TraceID) {
	for !id.IsValid() {
		binary.BigEndian.PutUint64(id[:8], rand.Uint64())
		binary.BigEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() (id oteltrace.SpanID) {
	for !id.IsValid() {
		binary.BigEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}

// lightSpan is a span that holds only its context and its provider, so that
// a span started from a context it is in (Tracer) is light too.
type lightSpan struct {
	embedded.Span
	sc       oteltrace.SpanContext
	provider *lightProvider
}

func (s *lightSpan) End(...oteltrace.SpanEndOption)              {}
func (s *lightSpan) AddEvent(string, ...oteltrace.EventOption)   {}
func (s *lightSpan) AddLink(oteltrace.Link)                      {}
func (s *lightSpan) IsRecording() bool                           { return false }
func (s *lightSpan) RecordError(error, ...oteltrace.EventOption) {}
func (s *lightSpan) SpanContext() oteltrace.SpanContext          { return s.sc }
func (s *lightSpan) SetStatus(codes.Code, string)                {}
func (s *lightSpan) SetName(string)                              {}
func (s *lightSpan) SetAttributes(...attribute.KeyValue)         {}
func (s *lightSpan) TracerProvider() oteltrace.TracerProvider    { return s.provider }
