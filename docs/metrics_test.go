package docs

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/trace"
)

var metricRow = regexp.MustCompile("^\\|\\s*`([a-z_*]+)`\\s*\\|\\s*([a-z—]+)\\s*\\|([^|]*)\\|(.*)\\|\\s*$")

// TestMetricsReference: docs/metrics.md lists exactly the mur_ families a
// door serves, each with its type and labels, and the go_ and process_
// collectors are served.
func TestMetricsReference(t *testing.T) {
	type family struct{ typ, labels string }
	documented := map[string]family{}
	for name, r := range tableRows(t, "metrics.md", metricRow) {
		var labels []string
		for _, l := range strings.Split(r.match[3], ",") {
			if l = strings.Trim(strings.TrimSpace(l), "`"); l != "" && l != "—" {
				labels = append(labels, l)
			}
		}
		sort.Strings(labels)
		documented[name] = family{typ: r.match[2], labels: strings.Join(labels, ",")}
	}
	served := servedFamilies(t)
	for name, f := range served {
		if strings.HasPrefix(name, "go_") || strings.HasPrefix(name, "process_") {
			continue
		}
		d, ok := documented[name]
		switch {
		case !ok:
			t.Errorf("docs/metrics.md has no row for %s: add | `%s` | %s | %s | <meaning> |", name, name, f.typ, f.labels)
		case d != family(f):
			t.Errorf("docs/metrics.md: %s is %s with labels %q; the registry serves %s with %q", name, d.typ, d.labels, f.typ, f.labels)
		}
	}
	for name := range documented {
		if strings.HasSuffix(name, "*") {
			prefix := strings.TrimSuffix(name, "*")
			found := false
			for s := range served {
				found = found || strings.HasPrefix(s, prefix)
			}
			if !found {
				t.Errorf("docs/metrics.md lists %s, but no such family is served", name)
			}
			continue
		}
		if _, ok := served[name]; !ok {
			t.Errorf("docs/metrics.md lists %s, which the registry does not serve: remove its row", name)
		}
	}
}

// servedFamilies scrapes a real door carrying a session's collectors, with
// every family given a sample first (a vector without children is not
// served).
func servedFamilies(t *testing.T) map[string]struct{ typ, labels string } {
	t.Helper()
	reg, err := tasktable.New(tasktable.Config{Acceptance: tasktable.ModeQueue, QueueDepth: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := telemetry.NewMetrics(func(string) bool { return true }, &telemetry.Provider{})
	m.Inference("scripted", "ok", time.Second)
	m.Tokens("scripted", 1, 1, nil, nil)
	for _, r := range []trace.Record{trace.ToolCall{ToolName: "bash", Status: "ok"}, trace.MemberCall{Member: "w", Status: "completed"},
		trace.MemberCallBusy{Member: "w"}, trace.TaskEnd{ExitStatus: "ok"}, trace.DriverRetry{Driver: "openai", Cause: "connection"},
		trace.Delegation{Capsule: "c", Outcome: "ok"}} {
		m.Record(r)
	}
	d, err := door.New(door.Config{Registry: reg, Card: agentcard.Config{Name: "m", Version: "1.0.0", URL: "http://127.0.0.1:1"},
		Acceptance: tasktable.ModeQueue, SessionID: "ses_x", Collectors: m.Collectors()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	// A JSON-RPC error and an SSE-less door still give every door family a sample.
	resp, err := http.Post(srv.URL+"/", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"Nope","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]struct{ typ, labels string }{}
	for name, f := range fams {
		seen := map[string]bool{}
		for _, mt := range f.Metric {
			for _, l := range mt.Label {
				seen[l.GetName()] = true
			}
		}
		var labels []string
		for l := range seen {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		out[name] = struct{ typ, labels string }{typeName(f.GetType()), strings.Join(labels, ",")}
	}
	return out
}

func typeName(t dto.MetricType) string {
	switch t {
	case dto.MetricType_COUNTER:
		return "counter"
	case dto.MetricType_GAUGE:
		return "gauge"
	case dto.MetricType_HISTOGRAM:
		return "histogram"
	}
	return strings.ToLower(t.String())
}
