package telemetry

import (
	"context"
	"sync/atomic"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// gate keeps the export queue bounded without ever blocking the span's
// ender (OTEL-4): a span that finds max spans already waiting is dropped and
// counted before the batch processor sees it. The batch processor does the
// batching and the export; countingExporter gives back the room.
type gate struct {
	next    sdktrace.SpanProcessor
	max     int64
	waiting atomic.Int64
	dropped atomic.Int64
	failed  atomic.Int64
}

var _ sdktrace.SpanProcessor = (*gate)(nil)

func (g *gate) OnStart(ctx context.Context, s sdktrace.ReadWriteSpan) { g.next.OnStart(ctx, s) }

func (g *gate) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	if g.waiting.Add(1) > g.max {
		g.waiting.Add(-1)
		g.dropped.Add(1)
		return
	}
	g.next.OnEnd(s)
}

func (g *gate) Shutdown(ctx context.Context) error   { return g.next.Shutdown(ctx) }
func (g *gate) ForceFlush(ctx context.Context) error { return g.next.ForceFlush(ctx) }

// countingExporter frees the gate's room as batches leave, and counts the
// batches the receiver refused or never got.
type countingExporter struct {
	inner sdktrace.SpanExporter
	g     *gate
}

func (e *countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.inner.ExportSpans(ctx, spans)
	e.g.waiting.Add(-int64(len(spans)))
	if err != nil {
		e.g.failed.Add(1)
	}
	return err
}

func (e *countingExporter) Shutdown(ctx context.Context) error { return e.inner.Shutdown(ctx) }
