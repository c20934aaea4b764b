package telemetry

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/murmur-go/mur/runtime/trace"
)

// OtherTool is the tool label of a call to a name the session does not
// serve: labels stay bounded whatever a model asks for (GO-6).
const OtherTool = "other"

// latencyBuckets span a fast tool to a model at its 300 s request timeout.
var latencyBuckets = []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// Metrics are a session's own families beyond the door's, for
// the door's registry. Labels carry kinds, names from the manifest and the
// roster, and outcomes — never ids (GO-6). Safe for concurrent use.
type Metrics struct {
	inferCalls  *prometheus.CounterVec
	inferTime   *prometheus.HistogramVec
	tokens      *prometheus.CounterVec
	retries     *prometheus.CounterVec
	toolCalls   *prometheus.CounterVec
	toolTime    *prometheus.HistogramVec
	memberCalls *prometheus.CounterVec
	busy        *prometheus.CounterVec
	tasks       *prometheus.CounterVec
	delegations *prometheus.CounterVec
	known       func(tool string) bool
	extra       []prometheus.Collector
}

// NewMetrics makes the families. known tells a tool the session serves
// (nil: every name is OtherTool); p, when not nil, adds its dropped-span
// and export-failure counts.
func NewMetrics(known func(tool string) bool, p *Provider) *Metrics {
	m := &Metrics{known: known}
	m.inferCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mur_inference_calls_total",
		Help: "Inference calls, by driver kind and outcome (ok, canceled, or the task_failed cause)."}, []string{"driver", "outcome"})
	m.inferTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mur_inference_duration_seconds",
		Help: "Time an inference call took, retries included, by driver kind and outcome.", Buckets: latencyBuckets}, []string{"driver", "outcome"})
	m.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mur_inference_tokens_total",
		Help: "Tokens of answered inference calls, by driver kind and kind (input, output: the provider's count, else the estimate; cached, cache_write: when reported)."}, []string{"driver", "kind"})
	m.retries = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mur_inference_retries_total",
		Help: "Inference attempts retried, by driver kind and cause (rate_limited, server_error, connection)."}, []string{"driver", "cause"})
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mur_tool_calls_total",
		Help: "Tool calls answered, by tool and status (ok, error)."}, []string{"tool", "status"})
	m.toolTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mur_tool_duration_seconds",
		Help: "Time a tool call took until its result, by tool and status.", Buckets: latencyBuckets}, []string{"tool", "status"})
	m.memberCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mur_member_calls_total",
		Help: "Member calls accounted for, by callee and ending (the member_call status)."}, []string{"callee", "ending"})
	m.busy = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mur_member_call_busy_total",
		Help: "Offers a callee answered busy, each re-offered later, by callee."}, []string{"callee"})
	m.tasks = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mur_tasks_total",
		Help: "Tasks ended, by ending (the task_end exit_status)."}, []string{"ending"})
	m.delegations = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mur_delegations_total",
		Help: "Delegations accounted for, by capsule (from capabilities.spawn.allow) and outcome (the delegation record's)."}, []string{"capsule", "outcome"})
	m.extra = []prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}
	if p != nil {
		m.extra = append(m.extra,
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "mur_otel_spans_dropped_total",
				Help: "Spans dropped because the OTLP export queue was full."}, func() float64 { return float64(p.Dropped()) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "mur_otel_export_failures_total",
				Help: "Span batches the OTLP receiver did not take."}, func() float64 { return float64(p.ExportErrors()) }))
	}
	return m
}

// Collectors are every family, for a registry.
func (m *Metrics) Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{m.inferCalls, m.inferTime, m.tokens, m.retries, m.toolCalls, m.toolTime,
		m.memberCalls, m.busy, m.tasks, m.delegations}, m.extra...)
}

// Inference counts one inference call that ended with outcome after d.
func (m *Metrics) Inference(kind, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.inferCalls.WithLabelValues(kind, outcome).Inc()
	m.inferTime.WithLabelValues(kind, outcome).Observe(d.Seconds())
}

// Tokens adds an answered call's tokens; cached and cacheWrite are nil
// when the provider did not report them.
func (m *Metrics) Tokens(kind string, in, out int64, cached, cacheWrite *int64) {
	if m == nil {
		return
	}
	m.tokens.WithLabelValues(kind, "input").Add(float64(in))
	m.tokens.WithLabelValues(kind, "output").Add(float64(out))
	if cached != nil {
		m.tokens.WithLabelValues(kind, "cached").Add(float64(*cached))
	}
	if cacheWrite != nil {
		m.tokens.WithLabelValues(kind, "cache_write").Add(float64(*cacheWrite))
	}
}

// Record counts what a written trace record reports; it is the trace
// writer's observer (trace.Writer.Observe), so every writer of these
// records — the loop, the tools' goroutines — is counted alike.
func (m *Metrics) Record(r trace.Record) {
	if m == nil {
		return
	}
	switch r := r.(type) {
	case trace.ToolCall:
		name := r.ToolName
		if m.known == nil || !m.known(name) {
			name = OtherTool
		}
		m.toolCalls.WithLabelValues(name, r.Status).Inc()
		m.toolTime.WithLabelValues(name, r.Status).Observe(float64(r.DurationMS) / 1000)
	case trace.MemberCall:
		m.memberCalls.WithLabelValues(r.Member, r.Status).Inc()
	case trace.MemberCallBusy:
		m.busy.WithLabelValues(r.Member).Inc()
	case trace.TaskEnd:
		m.tasks.WithLabelValues(r.ExitStatus).Inc()
	case trace.Delegation:
		m.delegations.WithLabelValues(r.Capsule, r.Outcome).Inc()
	case trace.DriverRetry:
		m.retries.WithLabelValues(r.Driver, r.Cause).Inc()
	}
}
