package session

import (
	"context"
	"fmt"
	"time"

	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/trace"
)

// flushGrace bounds the span export at session end (OTEL-4): the exporter
// never holds a session past it.
const flushGrace = 5 * time.Second

// setupTelemetry builds the session's tracer provider (OTEL-2, OTEL-3). A
// provider that cannot be built (e.g. an OTEL_EXPORTER_OTLP_ENDPOINT that is
// no URL) leaves a line in bootstrap.log and the session runs without export:
// telemetry never fails a run.
func (s *Session) setupTelemetry() {
	cfg := telemetry.Config{Getenv: s.l.Opts.Getenv, Session: s.id, Capsule: s.m.Name, Version: s.m.Version,
		MurVersion: s.l.Opts.Version}
	if mem := s.l.Member; mem != nil {
		cfg.Formation, cfg.Member = mem.FormationID, mem.Name
	}
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	p, err := telemetry.Setup(context.Background(), cfg)
	if err != nil {
		s.bootstrap(fmt.Sprintf("telemetry: %v; spans are not exported\n", err))
		cfg.Getenv = func(string) string { return "" }
		p, _ = telemetry.Setup(context.Background(), cfg)
	}
	s.otel = p
	s.tracer = p.Tracer()
	s.metrics = telemetry.NewMetrics(s.knownTool, p)
	s.tr.Observe(s.observe)
}

// observe is the trace writer's observer: the metrics, and the launch
// task's member calls that did not complete (Result.FailedCalls).
func (s *Session) observe(r trace.Record) {
	s.metrics.Record(r)
	if mc, ok := r.(trace.MemberCall); ok && mc.Status != "completed" && mc.TaskID != "" && mc.TaskID == s.launchTask {
		s.callsMu.Lock()
		s.failedCalls = append(s.failedCalls, mc)
		s.callsMu.Unlock()
	}
}

// waiting tells Progress the loop waits on the model for t.
func (s *Session) waiting(_ *taskRun, since time.Time) {
	if s.cfg.Progress != nil {
		s.cfg.Progress.ModelWaiting(since)
	}
}

// answered tells Progress the model answered (or the call ended).
func (s *Session) answered(_ *taskRun) {
	if s.cfg.Progress != nil {
		s.cfg.Progress.ModelAnswered()
	}
}

// flushTelemetry exports what is queued, within flushGrace (OTEL-4).
func (s *Session) flushTelemetry() {
	if s.otel == nil {
		return
	}
	if err := s.otel.ShutdownWithin(flushGrace); err != nil {
		s.bootstrap(fmt.Sprintf("telemetry: flush at session end: %v\n", err))
	}
}

// Telemetry is the session's tracer provider (export state, dropped spans).
func (s *Session) Telemetry() *telemetry.Provider { return s.otel }

// taskContext is the context a task's spans start from: the caller's W3C
// trace context when the door received one (OTEL-1).
func taskContext(ctx context.Context, traceparent, tracestate string) context.Context {
	return telemetry.Remote(ctx, traceparent, tracestate)
}
