package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// knownTool reports a tool name the session serves or reserves, the only
// names mur_tool_calls_total labels (GO-6).
func (s *Session) knownTool(name string) bool {
	if tool.IsProvided(name) {
		return true
	}
	_, refusal := s.tools.Lookup(name)
	return refusal == ""
}

// Metrics are the session's metric families, for the door's registry.
func (s *Session) Metrics() *telemetry.Metrics { return s.metrics }

// observeInference ends an inference call's span and counts it:
// outcome ok, canceled when the task's context ended it, else the LOOP-19
// cause.
func (t *taskRun) observeInference(span oteltrace.Span, ctx context.Context, kind string, start time.Time, resp *driver.Response, err error) {
	s := t.s
	d := time.Since(start)
	t.s.answered(t)
	switch {
	case err == nil:
		in, out := resp.EstimatedInputTokens(), resp.EstimatedOutputTokens()
		u := resp.Usage
		if u.Input != nil {
			in = *u.Input
		}
		if u.Output != nil {
			out = *u.Output
		}
		s.metrics.Inference(kind, "ok", d)
		s.metrics.Tokens(kind, in, out, u.Cached, u.CacheWrite)
		telemetry.EndInference(span, in, out, resp.StopReason, "", "")
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		s.metrics.Inference(kind, "canceled", d)
		telemetry.EndInference(span, 0, 0, "", "canceled", "the task was canceled during the call")
	default:
		cause := driver.Cause(err)
		s.metrics.Inference(kind, cause, d)
		telemetry.EndInference(span, 0, 0, "", cause, driver.Reason(err))
	}
}

// onRetry is driver.Request.OnRetry for turn: a driver_retry
// record, the retry counted (through the record), and under -v a line on
// stderr.
func (t *taskRun) onRetry(turn int) func(driver.Retry) {
	return func(r driver.Retry) {
		s := t.s
		rec := trace.DriverRetry{Turn: turn, TaskID: t.id, Driver: r.Kind, Attempt: r.Attempt, Cause: r.Cause,
			WaitMS: r.Wait.Milliseconds(), Error: oneLine(r.Err)}
		if r.Status != 0 {
			st := r.Status
			rec.Status = &st
		}
		_, _ = s.tr.Write(rec)
		if s.cfg.Verbose {
			fmt.Fprintf(s.cfg.Stderr, "mur: %s inference attempt %d failed (%s: %s); retrying in %s\n",
				r.Kind, r.Attempt, r.Cause, rec.Error, r.Wait.Round(time.Millisecond))
		}
	}
}

// oneLine is err's text on one line, cut at 300 characters.
func oneLine(err error) string {
	if err == nil {
		return ""
	}
	s := strings.Join(strings.Fields(err.Error()), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}
