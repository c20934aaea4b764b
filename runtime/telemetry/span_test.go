package telemetry

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestSpanStatus_OTEL5: every span kind ends with error status exactly
// where the trace records a failure, its reason (one line, bounded) as the
// description, and with the GenAI attributes where they apply.
func TestSpanStatus_OTEL5(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tr := tp.Tracer(Scope)
	ctx, task := StartTask(context.Background(), tr, "cap", "tsk_1", "peer")
	_, ok := StartInference(ctx, tr, "openai", "gpt-x")
	EndInference(ok, 12, 3, "stop", "", "")
	_, bad := StartInference(ctx, tr, "anthropic", "claude")
	EndInference(bad, 0, 0, "", "driver_error", "HTTP 500\nthree times")
	_, tool := StartTool(ctx, tr, "bash", "call_1")
	EndTool(tool, "error", "bash: exit 2")
	cctx, call := StartMemberCall(ctx, "worker", "mcl_1")
	if Tracer(cctx) == nil {
		t.Fatal("Tracer(ctx) = nil")
	}
	EndMemberCall(call, "tsk_9", "unreachable", strings.Repeat("x", 400))
	_, good := StartMemberCall(ctx, "worker", "mcl_2")
	EndMemberCall(good, "tsk_8", "completed", "the answer")
	EndTask(task, "failed", "driver_error: HTTP 500")

	type want struct {
		code  codes.Code
		desc  string
		attrs map[string]string
	}
	wants := map[string][]want{
		"chat gpt-x": {{codes.Unset, "", map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
			"gen_ai.request.model": "gpt-x", "gen_ai.usage.input_tokens": "12", "gen_ai.usage.output_tokens": "3"}}},
		"chat claude":       {{codes.Error, "HTTP 500 three times", map[string]string{"gen_ai.provider.name": "anthropic", "error.type": "driver_error"}}},
		"execute_tool bash": {{codes.Error, "bash: exit 2", map[string]string{"gen_ai.tool.name": "bash", "gen_ai.tool.call.id": "call_1", "mur.tool.status": "error"}}},
		"call-member worker": {
			{codes.Error, strings.Repeat("x", maxDescription) + "…", map[string]string{"mur.call.ending": "unreachable", "mur.call.task_id": "tsk_9"}},
			{codes.Unset, "", map[string]string{"mur.call.ending": "completed"}},
		},
		"invoke_agent cap": {{codes.Error, "driver_error: HTTP 500", map[string]string{"mur.task.ending": "failed", "mur.task.id": "tsk_1"}}},
	}
	seen := map[string]int{}
	for _, s := range exp.GetSpans() {
		ws, ok := wants[s.Name]
		if !ok {
			t.Errorf("unexpected span %q", s.Name)
			continue
		}
		w := ws[seen[s.Name]]
		seen[s.Name]++
		if s.Status.Code != w.code || s.Status.Description != w.desc {
			t.Errorf("%s status = %v %q, want %v %q", s.Name, s.Status.Code, s.Status.Description, w.code, w.desc)
		}
		got := map[string]string{}
		for _, a := range s.Attributes {
			got[string(a.Key)] = a.Value.String()
		}
		for k, v := range w.attrs {
			if got[k] != v {
				t.Errorf("%s attribute %s = %q, want %q", s.Name, k, got[k], v)
			}
		}
	}
	if len(exp.GetSpans()) != 6 {
		t.Errorf("spans = %d, want 6", len(exp.GetSpans()))
	}
}
