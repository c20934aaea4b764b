package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// Scope is the instrumentation scope of every span mur makes.
const Scope = "github.com/murmur-go/mur"

// DefaultQueueSize bounds the spans waiting for export when
// OTEL_BSP_MAX_QUEUE_SIZE is unset (the SDK's own default).
const DefaultQueueSize = 2048

// The resource attributes that name where a span was made (OTEL-3). Each
// is set only when known: formation and member only on a formation member.
const (
	AttrSession   = attribute.Key("mur.session.id")
	AttrCapsule   = attribute.Key("mur.capsule.name")
	AttrVersion   = attribute.Key("mur.capsule.version")
	AttrFormation = attribute.Key("mur.formation.id")
	AttrMember    = attribute.Key("mur.member.name")
)

// Config is what Setup needs: the environment and the names of the session.
type Config struct {
	// Getenv reads the OTEL_* variables (required). The exporter itself
	// reads the standard OTEL_EXPORTER_OTLP_* variables from the process
	// environment, which Getenv must therefore be a view of.
	Getenv    func(string) string
	Session   string // ses_…
	Capsule   string // the capsule's name: service.name unless OTEL_SERVICE_NAME says otherwise
	Version   string // the capsule's version
	Formation string // frm_…, "" outside a formation
	Member    string // the member's name, "" outside a formation
	// MurVersion is mur's own version (telemetry.sdk stays the SDK's).
	MurVersion string
}

// Provider is one session's tracer provider. Spans always get real W3C
// ids, so trace context reaches every member whether or not anything is
// exported (OTEL-1); with export on, ended spans go through a bounded queue
// to the OTLP/HTTP exporter and are dropped, and counted, when it is full
// (OTEL-4). With export off and the default sampler, spans carry their
// context and record nothing (lightProvider). Safe for concurrent use.
type Provider struct {
	tp        oteltrace.TracerProvider
	sdk       *sdktrace.TracerProvider // nil when spans are light
	exporting bool
	gate      *gate
}

// Enabled reports whether the environment asks for OTLP trace export
// (OTEL-2): OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
// is set, OTEL_SDK_DISABLED is not true and OTEL_TRACES_EXPORTER is not none.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	if e := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); e != "" && !strings.Contains(e, "otlp") {
		return false
	}
	return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")) != "" ||
		strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) != ""
}

// Setup builds the session's provider. With export off it makes no
// exporter at all, so no connection is ever opened (OTEL-2). Errors: a
// variable the SDK cannot read (an unparsable OTEL_RESOURCE_ATTRIBUTES is
// not one: its good part is kept).
func Setup(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.Getenv == nil {
		return nil, errors.New("telemetry config: Getenv is required")
	}
	p := &Provider{}
	if !Enabled(cfg.Getenv) && strings.TrimSpace(cfg.Getenv("OTEL_TRACES_SAMPLER")) == "" {
		p.tp = newLightProvider()
		return p, nil
	}
	res, err := newResource(ctx, cfg)
	if err != nil {
		return nil, err
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if Enabled(cfg.Getenv) {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("otlp trace exporter: %w", err)
		}
		size := queueSize(cfg.Getenv)
		p.gate = &gate{max: int64(size)}
		bsp := sdktrace.NewBatchSpanProcessor(&countingExporter{inner: exp, g: p.gate}, sdktrace.WithMaxQueueSize(size))
		p.gate.next = bsp
		opts = append(opts, sdktrace.WithSpanProcessor(p.gate))
		p.exporting = true
	}
	p.sdk = sdktrace.NewTracerProvider(opts...)
	p.tp = p.sdk
	return p, nil
}

// newResource names the process (OTEL-3): service.name is the capsule's name
// unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES names another (the
// environment wins), plus the session, capsule, version, formation, member.
func newResource(ctx context.Context, cfg Config) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{semconv.ServiceName(cfg.Capsule), semconv.ServiceVersion(cfg.Version),
		semconv.ServiceInstanceID(cfg.Session), AttrSession.String(cfg.Session), AttrCapsule.String(cfg.Capsule),
		AttrVersion.String(cfg.Version)}
	if cfg.Formation != "" {
		attrs = append(attrs, AttrFormation.String(cfg.Formation))
	}
	if cfg.Member != "" {
		attrs = append(attrs, AttrMember.String(cfg.Member))
	}
	if cfg.MurVersion != "" {
		attrs = append(attrs, attribute.String("mur.version", cfg.MurVersion))
	}
	// The SDK reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES from the
	// process environment; a malformed pair is dropped, the rest kept.
	fromEnv, _ := resource.New(ctx, resource.WithFromEnv())
	if fromEnv == nil {
		fromEnv = resource.Empty()
	}
	base := resource.NewSchemaless(attrs...)
	res, err := resource.Merge(base, fromEnv)
	if err != nil {
		return base, nil
	}
	return res, nil
}

// queueSize is OTEL_BSP_MAX_QUEUE_SIZE, or DefaultQueueSize.
func queueSize(getenv func(string) string) int {
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("OTEL_BSP_MAX_QUEUE_SIZE"))); err == nil && n > 0 {
		return n
	}
	return DefaultQueueSize
}

// Exporting reports whether spans leave the process.
func (p *Provider) Exporting() bool { return p.exporting }

// TracerProvider is the provider spans are made from.
func (p *Provider) TracerProvider() oteltrace.TracerProvider { return p.tp }

// Tracer is mur's tracer.
func (p *Provider) Tracer() oteltrace.Tracer { return p.tp.Tracer(Scope) }

// Dropped is the number of spans dropped because the export queue was full.
func (p *Provider) Dropped() int64 {
	if p.gate == nil {
		return 0
	}
	return p.gate.dropped.Load()
}

// ExportErrors is the number of export batches the receiver did not take.
func (p *Provider) ExportErrors() int64 {
	if p.gate == nil {
		return 0
	}
	return p.gate.failed.Load()
}

// Shutdown flushes what is queued and stops the exporter; it returns when
// done or when ctx ends (the session's grace, OTEL-4), whichever is first.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p.sdk == nil {
		return nil
	}
	return p.sdk.Shutdown(ctx)
}

// ShutdownWithin is Shutdown bounded by grace.
func (p *Provider) ShutdownWithin(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	return p.Shutdown(ctx)
}

// otlpEnv are the OTLP exporter's variable suffixes; each is read as
// OTEL_EXPORTER_OTLP_<suffix> and OTEL_EXPORTER_OTLP_TRACES_<suffix>.
var otlpEnv = []string{"ENDPOINT", "HEADERS", "TIMEOUT", "COMPRESSION", "PROTOCOL", "INSECURE",
	"CERTIFICATE", "CLIENT_CERTIFICATE", "CLIENT_KEY"}

// EnvNames are the standard OTEL_* variables a session's tracing reads: a
// process that starts another session (a delegated child, DLG-3) passes
// these on, so the child's spans reach the same receiver and join the same
// trace (OTEL-1, OTEL-2).
func EnvNames() []string {
	names := []string{"OTEL_SDK_DISABLED", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_EXPORTER",
		"OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_BSP_SCHEDULE_DELAY", "OTEL_BSP_EXPORT_TIMEOUT",
		"OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"}
	for _, s := range otlpEnv {
		names = append(names, "OTEL_EXPORTER_OTLP_"+s, "OTEL_EXPORTER_OTLP_TRACES_"+s)
	}
	return names
}
