package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/otlptest"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// TestNoExportNoConnection_OTEL2: with neither OTLP endpoint variable set,
// a run makes no connection at all — the receiver listens where the SDK
// sends by default (127.0.0.1:4318) and sees nothing, though other OTEL_*
// variables are set; the same run with OTEL_EXPORTER_OTLP_ENDPOINT does
// export there, which shows the receiver would have seen it.
func TestNoExportNoConnection_OTEL2(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:4318")
	if err != nil {
		t.Skipf("the OTLP default port is taken here: %v", err)
	}
	rcv := otlptest.StartOn(t, ln)
	e := helloEnv(t)
	run := func(env ...string) {
		t.Helper()
		cmd := e.command("--task", "list the files")
		cmd.Env = append(cmd.Env, env...)
		if _, stderr, code := testmur.Exec(t, cmd); code != 0 {
			t.Fatalf("mur run exited %d: %s", code, stderr)
		}
	}
	run("OTEL_SERVICE_NAME=off-run", "OTEL_EXPORTER_OTLP_HEADERS=x-a=b", "OTEL_TRACES_SAMPLER=always_on")
	if n := rcv.Connections(); n != 0 {
		t.Fatalf("with export off, the receiver got %d connections, want 0", n)
	}
	run("OTEL_SERVICE_NAME=on-run", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318")
	spans := rcv.Spans()
	if len(spans) == 0 {
		t.Fatal("with OTEL_EXPORTER_OTLP_ENDPOINT set, the receiver got no spans")
	}
	for _, s := range spans {
		if s.Resource["service.name"] != "on-run" {
			t.Errorf("a span from service %q, want only on-run's", s.Resource["service.name"])
		}
	}
}

// TestRetryVisible: a retried inference attempt writes driver_retry
// (cause, attempt, wait) and, under -v, one line on stderr; without -v,
// stderr says nothing of it. The inference record's duration_ms holds the
// whole call, waits included.
func TestRetryVisible(t *testing.T) {
	t.Parallel()
	for _, verbose := range []bool{true, false} {
		srv := fake.New(fake.Config{APIKey: "sk-test", Model: "m"})
		t.Cleanup(srv.Close)
		srv.Enqueue(fake.RateLimited("0"), fake.Status(503, "overloaded"), fake.Text("done"))
		e := newRunEnv(t, map[string]string{
			"murmur.yaml": "name: retry\nversion: \"1.0.0\"\ninference:\n  driver: {kind: openai, model: m, endpoint: \"" + srv.URL +
				"\", api_key: \"${TEST_OPENAI_KEY}\"}\n",
			".env": "TEST_OPENAI_KEY=sk-test\n",
		})
		args := []string{"--json", "--task", "x"}
		if verbose {
			args = append(args, "-v")
		}
		cmd := e.command(args...)
		stdout, stderr, code := testmur.Exec(t, cmd)
		if code != 0 {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		recs := tracetest.Records(t, recordsDirOf(t, stdout))
		rs := tracetest.OfType[trace.DriverRetry](t, recs)
		if len(rs) != 2 || rs[0].Cause != "rate_limited" || rs[0].Attempt != 1 || rs[0].Status == nil || *rs[0].Status != 429 ||
			rs[1].Cause != "server_error" || rs[1].Attempt != 2 || rs[1].WaitMS != 2000 || rs[0].Driver != "openai" {
			t.Fatalf("driver_retry records = %+v", rs)
		}
		// The call's inference record times it, the retries' waits included.
		if inf := tracetest.OfType[trace.Inference](t, recs); len(inf) != 1 || inf[0].DurationMS < rs[0].WaitMS+rs[1].WaitMS {
			t.Errorf("inference records = %+v, want one whose duration_ms covers the waits (%d ms)", inf, rs[0].WaitMS+rs[1].WaitMS)
		}
		lines := strings.Count(stderr, "inference attempt")
		switch {
		case verbose && (lines != 2 || !strings.Contains(stderr, "mur: openai inference attempt 1 failed (rate_limited: ")):
			t.Errorf("-v stderr = %q, want one line per retry", stderr)
		case !verbose && stderr != "":
			t.Errorf("stderr without -v = %q, want nothing", stderr)
		}
	}
}

// recordsDirOf reads records_dir from a --json readiness line.
func recordsDirOf(t *testing.T, stdout string) string {
	t.Helper()
	i := strings.Index(stdout, `"records_dir":"`)
	if i < 0 {
		t.Fatalf("no records_dir in %q", stdout)
	}
	rest := stdout[i+len(`"records_dir":"`):]
	dir := rest[:strings.IndexByte(rest, '"')]
	if _, err := os.Stat(filepath.Join(dir, "trace.jsonl")); err != nil {
		t.Fatal(err)
	}
	return dir
}
