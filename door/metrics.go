package door

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/murmur-go/mur/a2a"
)

// Label values of mur_door_requests_total and the duration histogram's
// "method": the door's method names, plus these for requests that name none.
// Labels never carry ids, names or tokens (GO-6).
const (
	labelCard     = "agent-card" // GET /.well-known/agent-card.json
	labelMetrics  = "metrics"    // GET /metrics
	labelPeerFile = "peer-file"  // GET /resources/peer/<handle>
	labelNone     = "none"       // refused before a method was read
	labelUnknown  = "unknown"    // a method name the door does not know
)

// Outcomes of a request.
const (
	outcomeOK           = "ok"           // a result, a card, a stream that ended in order
	outcomeError        = "error"        // a JSON-RPC error (or a stream's final error event)
	outcomeRefused      = "refused"      // an HTTP refusal: 401, 403, 404, 413
	outcomeNotification = "notification" // 204, nothing ran
)

var methodLabels = []string{
	a2a.MethodSendMessage, a2a.MethodSendStreamingMessage, a2a.MethodSubscribeToTask, a2a.MethodStreamWatch,
	a2a.MethodGetTask, a2a.MethodListTasks, a2a.MethodCancelTask, a2a.MethodSessionStop, a2a.MethodGetExtendedAgentCard,
	a2a.MethodCreateTaskPushNotificationConfig, a2a.MethodGetTaskPushNotificationConfig,
	a2a.MethodListTaskPushNotificationConfigs, a2a.MethodDeleteTaskPushNotificationConfig,
	labelCard, labelMetrics, labelPeerFile, labelNone, labelUnknown,
}

var outcomeLabels = []string{outcomeOK, outcomeError, outcomeRefused, outcomeNotification}

// SSE connection kinds of mur_door_sse_connections.
const (
	sseSend      = "SendStreamingMessage"
	sseSubscribe = "SubscribeToTask"
	sseWatch     = "stream/watch"
)

// taskStates are the states mur_door_tasks reports, always all of them.
var taskStates = []a2a.TaskState{
	a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateCompleted,
	a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected,
}

// metrics is one door's Prometheus registry and instruments (GO-6). The hot
// path reaches counters by index, never by hashing label values.
type metrics struct {
	reg       *prometheus.Registry
	requests  [][]prometheus.Counter // [method][outcome]
	durations []prometheus.Observer  // [method]
	refusals  *prometheus.CounterVec // code: an HTTP refusal code or a JSON-RPC error code
	sse       map[string]prometheus.Gauge
	inflight  prometheus.Gauge
	methodIdx map[string]int
}

func newMetrics(r Registry) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), methodIdx: map[string]int{}}
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mur_door_requests_total", Help: "Requests the door answered, by method and outcome.",
	}, []string{"method", "outcome"})
	durations := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "mur_door_request_duration_seconds", Help: "Time from request to the end of the answer, by method.",
		Buckets: prometheus.DefBuckets,
	}, []string{"method"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mur_door_refusals_total", Help: "Refusals and errors the door answered, by HTTP refusal code or JSON-RPC error code.",
	}, []string{"code"})
	sse := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "mur_door_sse_connections", Help: "Open server-sent event connections, by kind.",
	}, []string{"kind"})
	m.inflight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "mur_door_inflight_requests", Help: "Requests the door is answering now.",
	})
	m.reg.MustRegister(requests, durations, m.refusals, sse, m.inflight, &taskCollector{r: r, desc: prometheus.NewDesc(
		"mur_door_tasks", "Stored tasks, by state.", []string{"state"}, nil)})
	for i, name := range methodLabels {
		m.methodIdx[name] = i
		row := make([]prometheus.Counter, len(outcomeLabels))
		for j, o := range outcomeLabels {
			row[j] = requests.WithLabelValues(name, o)
		}
		m.requests = append(m.requests, row)
		m.durations = append(m.durations, durations.WithLabelValues(name))
	}
	m.sse = map[string]prometheus.Gauge{}
	for _, k := range []string{sseSend, sseSubscribe, sseWatch} {
		m.sse[k] = sse.WithLabelValues(k)
	}
	return m
}

// method returns a method's label index; unknown names share one label.
func (m *metrics) method(name string) int {
	if i, ok := m.methodIdx[name]; ok {
		return i
	}
	return m.methodIdx[labelUnknown]
}

func outcomeIndex(o string) int {
	for i, l := range outcomeLabels {
		if l == o {
			return i
		}
	}
	return 0
}

// taskCollector reads the registry's counts at scrape time (mur_door_tasks).
type taskCollector struct {
	r    Registry
	desc *prometheus.Desc
}

func (c *taskCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *taskCollector) Collect(ch chan<- prometheus.Metric) {
	counts := c.r.Counts()
	for _, s := range taskStates {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(counts[s]), string(s))
	}
}
