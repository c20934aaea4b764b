package telemetry

import (
	"context"
	"sync"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

// TestEnabled_OTEL2: export is on only with an OTLP endpoint variable,
// and the SDK's own off switches win.
func TestEnabled_OTEL2(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"nothing set", nil, false},
		{"other OTEL vars only", map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_EXPORTER_OTLP_HEADERS": "a=b"}, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{"blank endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "  "}, false},
		{"sdk disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_SDK_DISABLED": "TRUE"}, false},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_TRACES_EXPORTER": "none"}, false},
		{"exporter otlp", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_TRACES_EXPORTER": "otlp"}, true},
	}
	for _, c := range cases {
		if got := Enabled(env(c.env)); got != c.want {
			t.Errorf("%s: Enabled() = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSetupOff_OTEL2: with export off the provider holds no processor, so
// no exporter exists to open a connection; spans still get valid, sampled
// W3C ids, which is what members propagate.
func TestSetupOff_OTEL2(t *testing.T) {
	t.Parallel()
	p, err := Setup(context.Background(), Config{Getenv: env(nil), Session: "ses_1", Capsule: "c", Version: "1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Exporting() || p.gate != nil {
		t.Fatalf("Exporting() = %v, gate = %v with nothing set, want off", p.Exporting(), p.gate)
	}
	_, span := p.Tracer().Start(context.Background(), "x")
	sc := span.SpanContext()
	span.End()
	if !sc.IsValid() || !sc.IsSampled() {
		t.Errorf("span context = %v, want valid and sampled", sc)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown() = %v", err)
	}
}

// blockingExporter holds every export until release is closed.
type blockingExporter struct {
	release chan struct{}
	mu      sync.Mutex
	got     int
}

func (e *blockingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	<-e.release
	e.mu.Lock()
	e.got += len(spans)
	e.mu.Unlock()
	return nil
}

func (e *blockingExporter) Shutdown(context.Context) error { return nil }

// TestGateDropsWhenFull_OTEL4: a full queue never blocks the span's ender:
// spans past the bound are dropped and counted, and the room comes back as
// batches leave.
func TestGateDropsWhenFull_OTEL4(t *testing.T) {
	t.Parallel()
	exp := &blockingExporter{release: make(chan struct{})}
	g := &gate{max: 4}
	g.next = sdktrace.NewBatchSpanProcessor(&countingExporter{inner: exp, g: g}, sdktrace.WithMaxQueueSize(4), sdktrace.WithMaxExportBatchSize(4))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(g))
	tr := tp.Tracer("t")
	for range 10 {
		_, s := tr.Start(context.Background(), "s")
		s.End() // returns at once, full queue or not
	}
	if d := g.dropped.Load(); d != 6 {
		t.Errorf("dropped = %d, want 6 (10 spans, room for 4)", d)
	}
	close(exp.release)
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if exp.got != 4 || g.waiting.Load() != 0 {
		t.Errorf("exported %d, waiting %d; want 4 and 0", exp.got, g.waiting.Load())
	}
}
