// Package otlptest is a real OTLP/HTTP trace receiver for tests: it serves
// POST /v1/traces on loopback, decodes each protobuf export request with
// go.opentelemetry.io/proto/otlp and keeps the spans with their resources.
// Tests only; importable by anything.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span with its resource's attributes.
type Span struct {
	Resource map[string]string
	*tracepb.Span
}

// TraceID is the span's trace id in hex.
func (s Span) TraceID() string { return hex.EncodeToString(s.Span.TraceId) }

// ID is the span's id in hex.
func (s Span) ID() string { return hex.EncodeToString(s.Span.SpanId) }

// Parent is the parent span's id in hex, "" for a root span.
func (s Span) Parent() string { return hex.EncodeToString(s.Span.ParentSpanId) }

// Attr is the span attribute key as a string ("" when absent; ints in decimal).
func (s Span) Attr(key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return value(kv.Value)
		}
	}
	return ""
}

// Receiver is a running OTLP/HTTP receiver. Safe for concurrent use.
type Receiver struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []Span
	requests int
	conns    int
	changed  chan struct{} // closed and replaced on every export
}

// Start starts a receiver on a free loopback port, closed at the test's end.
func Start(t testing.TB) *Receiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return StartOn(t, ln)
}

// StartOn starts a receiver on ln, closed at the test's end.
func StartOn(t testing.TB, ln net.Listener) *Receiver {
	t.Helper()
	r := &Receiver{changed: make(chan struct{})}
	r.Server = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.Server.Listener.Close()
	r.Server.Listener = ln
	r.Server.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			r.mu.Lock()
			r.conns++
			r.mu.Unlock()
		}
	}
	r.Server.Start()
	t.Cleanup(r.Close)
	return r
}

// Connections is the number of connections accepted so far.
func (r *Receiver) Connections() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.NotFound(w, req)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var ex coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &ex); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.requests++
	for _, rs := range ex.ResourceSpans {
		res := map[string]string{}
		for _, kv := range rs.GetResource().GetAttributes() {
			res[kv.Key] = value(kv.Value)
		}
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				r.spans = append(r.spans, Span{Resource: res, Span: sp})
			}
		}
	}
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// Spans returns every span received so far, in arrival order.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Requests is the number of export requests received.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Changed is closed at the next export.
func (r *Receiver) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	case *commonpb.AnyValue_ArrayValue:
		s := ""
		for i, e := range x.ArrayValue.GetValues() {
			if i > 0 {
				s += ","
			}
			s += value(e)
		}
		return s
	}
	return ""
}
