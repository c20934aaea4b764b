package client

import (
	"context"
	"testing"

	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-go/mur/a2a"
)

// TestTraceContext_OTEL1: a call whose context holds a span context sends
// its W3C traceparent and tracestate, on unary calls and streams alike; a
// call without one sends neither.
func TestTraceContext_OTEL1(t *testing.T) {
	t.Parallel()
	s := newRPCServer(t, func(string, map[string]any) string {
		return `{"jsonrpc":"2.0","id":$ID,"result":` + taskJSON + `}`
	})
	c := mustNew(t, Config{BaseURL: s.URL})
	tid, _ := oteltrace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := oteltrace.SpanIDFromHex("00f067aa0ba902b7")
	ts, err := oteltrace.ParseTraceState("mur=1,other=x")
	if err != nil {
		t.Fatal(err)
	}
	sc := oteltrace.NewSpanContext(oteltrace.SpanContextConfig{TraceID: tid, SpanID: sid,
		TraceFlags: oteltrace.FlagsSampled, TraceState: ts, Remote: true})
	ctx := oteltrace.ContextWithSpanContext(context.Background(), sc)

	if _, err := c.GetTask(ctx, a2a.GetTaskRequest{ID: "tsk_1"}); err != nil {
		t.Fatalf("GetTask() error = %v", err)
	}
	if _, err := c.GetTask(context.Background(), a2a.GetTaskRequest{ID: "tsk_1"}); err != nil {
		t.Fatalf("GetTask() error = %v", err)
	}
	for range c.SubscribeToTask(ctx, a2a.SubscribeToTaskRequest{ID: "tsk_1"}) {
		break
	}
	reqs := s.requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want 3", len(reqs))
	}
	const want = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, i := range []int{0, 2} {
		if got := reqs[i].header.Get("traceparent"); got != want {
			t.Errorf("request %d traceparent = %q, want %q", i, got, want)
		}
		if got := reqs[i].header.Get("tracestate"); got != "mur=1,other=x" {
			t.Errorf("request %d tracestate = %q, want %q", i, got, "mur=1,other=x")
		}
	}
	if got := reqs[1].header.Values("traceparent"); len(got) != 0 {
		t.Errorf("traceparent without a span context = %q, want none", got)
	}
}
