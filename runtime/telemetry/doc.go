// Package telemetry is a session's OpenTelemetry tracing and its metrics
// beyond the door (docs/telemetry.md, docs/metrics.md).
//
// Tracing: Setup builds a session's tracer provider. Spans always get real
// W3C ids, so trace context crosses members whether or not it is exported
// (OTEL-1); export goes over OTLP/HTTP protobuf (the official SDK's
// otlptracehttp, honouring the standard OTEL_* variables) only when an
// OTLP endpoint variable is set (OTEL-2), through a bounded queue that
// drops and counts rather than block (OTEL-4). The Start*/End* helpers
// name every span kind mur makes and their attributes (GenAI semantic
// conventions where they apply, OTEL-5); code handed only a context (a
// tool's goroutines) finds the session's tracer through Tracer(ctx).
//
// Metrics: NewMetrics makes the families a session adds to its door's
// registry; Metrics.Record is the trace writer's observer, so every record
// writer is counted alike. Labels carry kinds, manifest and roster names
// and outcomes, never ids.
//
// # Example
//
//	p, err := telemetry.Setup(ctx, telemetry.Config{Getenv: os.Getenv, Session: id, Capsule: name, Version: v})
//	ctx, span := telemetry.StartTask(telemetry.Remote(ctx, traceparent, tracestate), p.Tracer(), name, taskID, "peer")
//	defer telemetry.EndTask(span, "ok", "")
//	defer p.ShutdownWithin(5 * time.Second)
package telemetry
