package bridge

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/murmur-go/mur/runtime/tool"
)

// callsPerOp is the round trips one benchmark iteration makes: over
// 1,000 calls.
const callsPerOp = 1000

// trivial is a tool that answers at once, as a tool answers the loop.
type trivial struct{}

func (trivial) Spec() tool.Spec {
	return tool.Spec{Name: "noop", Description: "Answer ok.", InputSchema: []byte(tool.EmptySchema), Kind: tool.KindNative}
}

func (trivial) Call(context.Context, *tool.CallContext, json.RawMessage) tool.Result {
	return tool.Result{Status: tool.Passed, Summary: "noop: ok", Data: "ok"}
}

// BenchmarkBridgedCall is a bridged tool round trip: a
// harness-side MCP tools/call from the go-sdk client over
// loopback HTTP, with claude's _meta, through the bridge's queue and
// attribution to Dispatch of a trivial tool, its result fenced as the loop
// renders it (tool.Result.Content), and the answer back. Each iteration is
// 1,000 calls; p50-µs and p99-µs are over every call of the run.
func BenchmarkBridgedCall(b *testing.B) {
	tl := trivial{}
	s, err := start(Config{Version: "0.1.0", Tools: []tool.Spec{tl.Spec()}, Dispatch: func(ctx context.Context, c Call) Answer {
		res := tl.Call(ctx, &tool.CallContext{Turn: c.Turn}, c.Arguments)
		text, _ := res.Content(c.Name)
		return Answer{Text: text, IsError: res.IsError()}
	}}, attributionWait)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close(context.Background()) })
	s.BeginRun()
	s.ToolUse(0, "toolu_bench", "noop")
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(b.Context(), &mcp.StreamableClientTransport{Endpoint: s.URL(),
		HTTPClient: &http.Client{Transport: bearer{s.Token().Reveal(), http.DefaultTransport}}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	params := &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{}, Meta: mcp.Meta{"claudecode/toolUseId": "toolu_bench"}}
	call := func() {
		res, err := cs.CallTool(b.Context(), params)
		if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "ok") {
			b.Fatalf("call: %v %+v", err, res)
		}
	}
	percentiles(b, call)
}

// BenchmarkBridgedCallRawClient is BenchmarkBridgedCall with a plain HTTP
// client posting Claude Code's tools/call body instead of the go-sdk
// client: the bridge's share of the round trip.
func BenchmarkBridgedCallRawClient(b *testing.B) {
	tl := trivial{}
	s, err := start(Config{Version: "0.1.0", Tools: []tool.Spec{tl.Spec()}, Dispatch: func(ctx context.Context, c Call) Answer {
		res := tl.Call(ctx, &tool.CallContext{Turn: c.Turn}, c.Arguments)
		text, _ := res.Content(c.Name)
		return Answer{Text: text, IsError: res.IsError()}
	}}, attributionWait)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close(context.Background()) })
	s.BeginRun()
	s.ToolUse(0, "toolu_bench", "noop")
	hc := &http.Client{Transport: http.DefaultTransport}
	post := func(session, body string) (string, string) {
		req, _ := http.NewRequestWithContext(b.Context(), http.MethodPost, s.URL(), strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.Token().Reveal())
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.Header.Get("Mcp-Session-Id"), string(got)
	}
	session, _ := post("", `{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}},"jsonrpc":"2.0","id":0}`)
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	body := `{"method":"tools/call","params":{"name":"noop","arguments":{},"_meta":{"claudecode/toolUseId":"toolu_bench","progressToken":2}},"jsonrpc":"2.0","id":2}`
	percentiles(b, func() {
		if _, got := post(session, body); !strings.Contains(got, `"isError":false`) {
			b.Fatalf("answer %q", got)
		}
	})
}

// BenchmarkLoopbackHTTP is the baseline: the same HTTP client posting the
// same JSON-RPC body to a bare net/http handler on loopback that answers
// fixed bytes: what the wire alone costs.
func BenchmarkLoopbackHTTP(b *testing.B) {
	const answer = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"<<<tool:noop>>>\nok\n<<</tool:noop>>>"}],"isError":false}}`
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	})}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close(); <-done })
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"noop","arguments":{},"_meta":{"claudecode/toolUseId":"toolu_bench"}}}`
	url := "http://" + ln.Addr().String() + Path
	hc := &http.Client{Transport: http.DefaultTransport}
	call := func() {
		req, _ := http.NewRequestWithContext(b.Context(), http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != answer {
			b.Fatalf("answer %q", got)
		}
	}
	percentiles(b, call)
}

// percentiles runs call callsPerOp times per iteration and reports the
// p50 and p99 of every call's duration.
func percentiles(b *testing.B, call func()) {
	call() // warm the connection
	var ds []time.Duration
	b.ResetTimer()
	for b.Loop() {
		for range callsPerOp {
			t0 := time.Now()
			call()
			ds = append(ds, time.Since(t0))
		}
	}
	b.StopTimer()
	slices.Sort(ds)
	at := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(float64(len(ds)), "calls")
}
