package telemetry

import (
	"context"
	"net/http"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	oteltrace "go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Span attributes of mur's own (the GenAI semantic conventions' are used
// where they name the thing: gen_ai.operation.name, gen_ai.request.model,
// gen_ai.provider.name, gen_ai.usage.*, gen_ai.tool.name).
const (
	AttrTaskID     = attribute.Key("mur.task.id")
	AttrTaskOrigin = attribute.Key("mur.task.origin")
	AttrTaskEnding = attribute.Key("mur.task.ending")
	AttrTurn       = attribute.Key("mur.turn")
	AttrToolStatus = attribute.Key("mur.tool.status")
	AttrCallee     = attribute.Key("mur.call.member")
	AttrCallID     = attribute.Key("mur.call.id")
	AttrCallTask   = attribute.Key("mur.call.task_id")
	AttrCallEnding = attribute.Key("mur.call.ending")
	AttrDriverKind = attribute.Key("mur.driver.kind")
	AttrOutcome    = attribute.Key("mur.outcome")
)

// propagator is W3C trace context: traceparent and tracestate (OTEL-1).
var propagator = propagation.TraceContext{}

// Remote returns ctx carrying the caller's span context from a traceparent
// and tracestate pair as a door received them; ctx unchanged when the
// traceparent is absent or not a valid W3C value.
func Remote(ctx context.Context, traceparent, tracestate string) context.Context {
	if traceparent == "" {
		return ctx
	}
	h := http.Header{}
	h.Set("traceparent", traceparent)
	if tracestate != "" {
		h.Set("tracestate", tracestate)
	}
	return propagator.Extract(ctx, propagation.HeaderCarrier(h))
}

// Valid reports whether traceparent is a W3C traceparent a span can be
// parented on.
func Valid(traceparent string) bool {
	return oteltrace.SpanContextFromContext(Remote(context.Background(), traceparent, "")).IsValid()
}

// Tracer returns the tracer that made ctx's span, so that code handed only a
// context (a tool's goroutines) makes its spans with the session's
// provider; a no-op tracer when ctx holds none.
func Tracer(ctx context.Context) oteltrace.Tracer {
	return oteltrace.SpanFromContext(ctx).TracerProvider().Tracer(Scope)
}

// Noop is a tracer that makes nothing, for sessions built without a provider.
func Noop() oteltrace.Tracer { return noop.NewTracerProvider().Tracer(Scope) }

// Detach returns a context with ctx's span but none of its deadline,
// cancellation or other values: requests that outlive a tool call still
// carry the call's trace context.
func Detach(ctx context.Context) context.Context {
	return oteltrace.ContextWithSpan(context.Background(), oteltrace.SpanFromContext(ctx))
}

// StartTask starts a task's span: the A2A server span, parented on the
// caller's trace context when ctx carries one (OTEL-5). Each Start* helper
// builds its name and attributes only for a tracer that records them, and
// each End* helper only sets them on a span that records.
func StartTask(ctx context.Context, tr oteltrace.Tracer, capsule, taskID, origin string) (context.Context, oteltrace.Span) {
	if lt, ok := tr.(*lightTracer); ok {
		return lt.start(ctx, oteltrace.SpanContextFromContext(ctx))
	}
	return tr.Start(ctx, "invoke_agent "+capsule, oteltrace.WithSpanKind(oteltrace.SpanKindServer),
		oteltrace.WithAttributes(semconv.GenAIOperationNameInvokeAgent, semconv.GenAIAgentName(capsule),
			AttrTaskID.String(taskID), AttrTaskOrigin.String(origin)))
}

// EndTask ends a task's span with its ending (LOOP-5); error status for
// any ending but ok, with reason as the description.
func EndTask(span oteltrace.Span, ending, reason string) {
	if !span.IsRecording() {
		span.End()
		return
	}
	span.SetAttributes(AttrTaskEnding.String(ending))
	if ending != "ok" {
		span.SetStatus(codes.Error, describe(firstNonEmpty(reason, ending)))
	}
	span.End()
}

// StartTurn starts turn n's span (0-based).
func StartTurn(ctx context.Context, tr oteltrace.Tracer, n int) (context.Context, oteltrace.Span) {
	if lt, ok := tr.(*lightTracer); ok {
		return lt.start(ctx, oteltrace.SpanContextFromContext(ctx))
	}
	return tr.Start(ctx, "turn", oteltrace.WithAttributes(AttrTurn.Int(n)))
}

// Provider is gen_ai.provider.name for a driver kind.
func providerName(kind string) attribute.KeyValue {
	switch kind {
	case "openai":
		return semconv.GenAIProviderNameOpenAI
	case "anthropic":
		return semconv.GenAIProviderNameAnthropic
	}
	return semconv.GenAIProviderNameKey.String("mur." + kind)
}

// StartInference starts one inference call's span (GenAI "chat").
func StartInference(ctx context.Context, tr oteltrace.Tracer, kind, model string) (context.Context, oteltrace.Span) {
	if lt, ok := tr.(*lightTracer); ok {
		return lt.start(ctx, oteltrace.SpanContextFromContext(ctx))
	}
	return tr.Start(ctx, "chat "+model, oteltrace.WithSpanKind(oteltrace.SpanKindClient),
		oteltrace.WithAttributes(semconv.GenAIOperationNameChat, semconv.GenAIRequestModel(model),
			providerName(kind), AttrDriverKind.String(kind)))
}

// EndInference ends an inference span: the usage on success, error status
// with the LOOP-19 cause and reason on failure.
func EndInference(span oteltrace.Span, in, out int64, stop, cause, reason string) {
	if !span.IsRecording() {
		span.End()
		return
	}
	if cause != "" {
		span.SetAttributes(semconv.ErrorTypeKey.String(cause), AttrOutcome.String(cause))
		span.SetStatus(codes.Error, describe(reason))
	} else {
		span.SetAttributes(semconv.GenAIUsageInputTokens(int(in)), semconv.GenAIUsageOutputTokens(int(out)),
			semconv.GenAIResponseFinishReasons(stop), AttrOutcome.String("ok"))
	}
	span.End()
}

// StartTool starts one tool call's span (GenAI "execute_tool").
func StartTool(ctx context.Context, tr oteltrace.Tracer, name, callID string) (context.Context, oteltrace.Span) {
	if lt, ok := tr.(*lightTracer); ok {
		return lt.start(ctx, oteltrace.SpanContextFromContext(ctx))
	}
	return tr.Start(ctx, "execute_tool "+name, oteltrace.WithAttributes(semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(name), semconv.GenAIToolCallID(callID)))
}

// EndTool ends a tool span with the tool_call's status (ok | error); the
// summary describes an error.
func EndTool(span oteltrace.Span, status, summary string) {
	if !span.IsRecording() {
		span.End()
		return
	}
	span.SetAttributes(AttrToolStatus.String(status))
	if status != "ok" {
		span.SetStatus(codes.Error, describe(summary))
	}
	span.End()
}

// StartMemberCall starts a member call's span: the A2A client span every
// request of the call (offers, polls, cancels) carries as traceparent.
func StartMemberCall(ctx context.Context, member, callID string) (context.Context, oteltrace.Span) {
	tr := Tracer(ctx)
	if lt, ok := tr.(*lightTracer); ok {
		return lt.start(ctx, oteltrace.SpanContextFromContext(ctx))
	}
	return tr.Start(ctx, "call-member "+member, oteltrace.WithSpanKind(oteltrace.SpanKindClient),
		oteltrace.WithAttributes(AttrCallee.String(member), AttrCallID.String(callID)))
}

// EndMemberCall ends a member call's span with its member_call status
// (tools.md CALL-11); error status for any but completed.
func EndMemberCall(span oteltrace.Span, taskID, status, output string) {
	if !span.IsRecording() {
		span.End()
		return
	}
	if taskID != "" {
		span.SetAttributes(AttrCallTask.String(taskID))
	}
	span.SetAttributes(AttrCallEnding.String(status))
	if status != "completed" {
		span.SetStatus(codes.Error, describe(output))
	}
	span.End()
}

// StartWait starts the span of a task's wait for outstanding answers.
func StartWait(ctx context.Context, tr oteltrace.Tracer) (context.Context, oteltrace.Span) {
	return tr.Start(ctx, "wait for answers")
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// maxDescription bounds a span status description: the reason, on one
// line; the trace holds the whole text.
const maxDescription = 256

// describe is s on one line, cut at maxDescription runes.
func describe(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxDescription {
		return s
	}
	return string([]rune(s)[:maxDescription]) + "…"
}
