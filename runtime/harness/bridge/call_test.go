package bridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// callBody is a tools/call of name with claude's tool_use id (none if "").
func callBody(n int, name, toolUseID string) string {
	meta := ""
	if toolUseID != "" {
		meta = `,"_meta":{"claudecode/toolUseId":"` + toolUseID + `"}`
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":{"n":%d}%s}}`, n, name, n, meta)
}

// codexBody is a tools/call as codex sends it: _meta.callId.
func codexBody(n int, name, callID string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"_meta":{"callId":"%s","itemId":"fc_%d"},"name":"%s"}}`, n, callID, n, name)
}

// result is the JSON-RPC response of a call answered with a's text.
func result(n int, a Answer) string {
	b, _ := marshal(a.Text)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%s}],"isError":%v}}`, n, b, a.IsError)
}

// inFlight reports every Activity value on a channel, so a test knows a
// call has arrived before it sends the next.
func inFlight() (func(int), <-chan int) {
	ch := make(chan int, 64) // more than any test's calls × 2
	return func(n int) { ch <- n }, ch
}

// TestOneAtATime: calls are dispatched one at a time, in arrival order,
// whatever order they finish waiting in; a second call waits for the
// first's answer (BRG-5). Activity hears each arrival and answer (BRG-8).
func TestOneAtATime(t *testing.T) {
	const n = 5
	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	running := 0
	act, acts := inFlight()
	s := startTest(t, Config{Activity: act, Dispatch: func(ctx context.Context, c Call) Answer {
		mu.Lock()
		running++
		order = append(order, string(c.Arguments))
		if running > 1 {
			t.Errorf("%d calls dispatched at once", running)
		}
		mu.Unlock()
		if c.Name == "first" {
			<-release
		}
		mu.Lock()
		running--
		mu.Unlock()
		return Answer{Text: "ok " + string(c.Arguments)}
	}}, 0)
	s.BeginRun()
	session := initSession(t, s)
	var wg sync.WaitGroup
	got := make([]string, n)
	for i := range n {
		name := "later"
		if i == 0 {
			name = "first"
		}
		wg.Go(func() { got[i] = rpc(t, s, session, callBody(i, name, "")).body })
		if v := <-acts; v != i+1 { // call i has arrived and waits behind the first
			t.Fatalf("Activity: %d in flight after call %d arrived", v, i)
		}
	}
	close(release)
	wg.Wait()
	for i := range n {
		if want := result(i, Answer{Text: fmt.Sprintf(`ok {"n":%d}`, i)}); got[i] != want {
			t.Errorf("call %d: %s, want %s", i, got[i], want)
		}
	}
	want := []string{`{"n":0}`, `{"n":1}`, `{"n":2}`, `{"n":3}`, `{"n":4}`}
	if !slices.Equal(order, want) {
		t.Errorf("dispatch order %v, want %v", order, want)
	}
	var after []int
	for range n {
		after = append(after, <-acts)
	}
	if !slices.Equal(after, []int{4, 3, 2, 1, 0}) {
		t.Errorf("Activity after the answers: %v", after)
	}
}

// TestNoRun: a call while no run is in progress reaches Dispatch with
// BRG-7's refusal and no turn. EndRun cancels the call in flight; a call
// queued behind it is then refused or, its MCP session closed with the
// run, dropped: it never runs (BRG-7; EndRun).
func TestNoRun(t *testing.T) {
	started := make(chan struct{})
	causes := make(chan error, 1) // the one blocked call's cause
	var mu sync.Mutex
	var later []Call // calls after the blocked one
	act, acts := inFlight()
	s := startTest(t, Config{Activity: act, Dispatch: func(ctx context.Context, c Call) Answer {
		if c.Name == "block" {
			close(started)
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return Answer{Text: "stopped", IsError: true}
		}
		mu.Lock()
		later = append(later, c)
		mu.Unlock()
		return echo(ctx, c)
	}}, 0)
	session := initSession(t, s)
	refused := `name=bash args={"n":1} id=toolu_1 turn=-1 refusal=` + RefusalNoRun
	if got, want := rpc(t, s, session, callBody(1, "bash", "toolu_1")).body, result(1, Answer{Text: refused, IsError: true}); got != want {
		t.Errorf("before any run: %s, want %s", got, want)
	}
	<-acts
	<-acts
	s.BeginRun()
	s.Turn(0)
	var wg sync.WaitGroup
	wg.Go(func() { _ = rpcErr(s, session, callBody(2, "block", "")) })
	<-started
	<-acts
	wg.Go(func() { _ = rpcErr(s, session, callBody(3, "bash", "")) })
	<-acts // the second call waits behind the first
	s.EndRun()
	wg.Wait()
	if cause := <-causes; !errors.Is(cause, errRunEnded) {
		t.Errorf("in-flight call's cause: %v", cause)
	}
	<-acts
	<-acts
	mu.Lock()
	defer mu.Unlock()
	for _, c := range later[1:] {
		if c.Refusal != RefusalNoRun || c.Turn != 0 {
			t.Errorf("a call queued across EndRun was dispatched as %+v, want refused in turn 0", c)
		}
	}
}

// TestAttribution: a claude call takes the turn its tool_use id was
// reported in, before or while it waits; a codex call takes the turns of
// its tool's uses in order; a call never named takes the newest turn after
// the wait, one without an id at once; without a turn, -1 (BRG-6).
func TestAttribution(t *testing.T) {
	act, acts := inFlight()
	s := startTest(t, Config{Activity: act}, 50*time.Millisecond)
	s.BeginRun()
	session := initSession(t, s)
	turnOf := func(body string) string {
		t.Helper()
		got := rpc(t, s, session, body).body
		_, after, _ := strings.Cut(got, "turn=")
		turn, _, _ := strings.Cut(after, " ")
		<-acts
		<-acts
		return turn
	}
	if got := turnOf(callBody(1, "bash", "")); got != "-1" {
		t.Errorf("no turn yet: %s", got)
	}
	s.Turn(0)
	s.ToolUse(1, "toolu_a", "bash")
	s.ToolUse(2, "", "bash") // codex: no id on the line
	s.ToolUse(3, "", "bash")
	s.ToolUse(3, "", "session-status")
	s.Turn(1) // a lower number does not lower the newest
	for _, c := range []struct{ body, want string }{
		{callBody(2, "bash", "toolu_a"), "1"},
		{codexBody(3, "bash", "call_1"), "2"},
		{codexBody(4, "session-status", "call_2"), "3"},
		{codexBody(5, "bash", "call_3"), "3"},
		{callBody(6, "bash", ""), "3"},               // no id: the newest at once
		{callBody(7, "bash", "toolu_never"), "3"},    // never named: the newest after the wait
		{codexBody(8, "bash", "call_4"), "3"},        // bash's uses are spent
		{codexBody(9, "call-member", "call_5"), "3"}, // no use of its tool
	} {
		if got := turnOf(c.body); got != c.want {
			t.Errorf("%s: turn %s, want %s", c.body, got, c.want)
		}
	}
	// Named while the call waits, on a bridge whose wait (a minute) only
	// the report can end: with the 50 ms above, a loaded machine could let
	// it end first (TestAttributionWait covers the wait's bound).
	act, acts = inFlight()
	s = startTest(t, Config{Activity: act}, 0)
	s.BeginRun()
	s.Turn(0)
	session = initSession(t, s)
	var wg sync.WaitGroup
	var got string
	wg.Go(func() {
		b := rpc(t, s, session, callBody(10, "bash", "toolu_late")).body
		_, after, _ := strings.Cut(b, "turn=")
		got, _, _ = strings.Cut(after, " ")
	})
	<-acts
	s.ToolUse(7, "toolu_late", "bash")
	wg.Wait()
	<-acts
	if got != "7" {
		t.Errorf("named during the wait: turn %s", got)
	}
}

// TestAttributionWaitsForRunEnd: a call waiting to be attributed stops
// waiting when its run ends, takes the newest turn, and is refused (BRG-6,
// BRG-7). Over the wire, EndRun may land before or during the wait; each
// interleaving is forced in run_test.go (TestRunTakenAtArrival,
// TestRunEndStopsTheWait).
func TestAttributionWaitsForRunEnd(t *testing.T) {
	act, acts := inFlight()
	calls := make(chan Call, 1) // the one call
	s := startTest(t, Config{Activity: act, Dispatch: func(ctx context.Context, c Call) Answer {
		calls <- c
		return echo(ctx, c)
	}}, 0) // a minute: only EndRun ends the wait
	s.BeginRun()
	s.Turn(4)
	session := initSession(t, s)
	var wg sync.WaitGroup
	wg.Go(func() { _ = rpcErr(s, session, callBody(1, "bash", "toolu_x")) })
	<-acts
	s.EndRun()
	wg.Wait()
	if c := <-calls; c.Refusal != RefusalNoRun || c.ToolCallID != "toolu_x" || c.Turn != 4 {
		t.Errorf("dispatched as %+v, want refused in the newest turn, 4", c)
	}
}

// TestAnswerText: the answer carries Dispatch's text byte for byte (HTML
// characters, newlines, fences), and isError both ways (BRG-5).
func TestAnswerText(t *testing.T) {
	text := "<<<tool:bash>>>\n<b>&amp;</b> \"q\" \u2028\n<<</tool:bash>>>\nnote: exit 1\n" +
		"[deadline] the task's deadline is 2026-12-01T22:00:00Z; 30s are left"
	for _, isErr := range []bool{false, true} {
		s := startTest(t, Config{Dispatch: func(context.Context, Call) Answer { return Answer{Text: text, IsError: isErr} }}, 0)
		s.BeginRun()
		got := rpc(t, s, initSession(t, s), callBody(1, "bash", "")).body
		b, _ := marshal(text)
		want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + string(b) + `}],"isError":` + fmt.Sprint(isErr) + `}}`
		if got != want || !strings.Contains(got, `<b>&amp;</b>`) {
			t.Errorf("isError %v:\n got %s\nwant %s", isErr, got, want)
		}
	}
}

// TestClose: Close cancels the call in flight and returns once its request
// is answered; the listener then refuses connections.
func TestClose(t *testing.T) {
	started := make(chan struct{})
	s, err := start(Config{Version: "1", Tools: testTools, Dispatch: func(ctx context.Context, c Call) Answer {
		close(started)
		<-ctx.Done()
		return Answer{Text: "closed"}
	}}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s.BeginRun()
	session := initSession(t, s)
	var wg sync.WaitGroup
	wg.Go(func() { _ = rpcErr(s, session, callBody(1, "bash", "")) })
	<-started
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	wg.Wait()
	if err := rpcErr(s, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); err == nil {
		t.Error("the bridge answered after Close")
	}
	if err := s.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestCancelNotification: notifications/cancelled for a call in flight
// cancels its dispatch context, as a client's interrupt would.
func TestCancelNotification(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan error, 1) // the one call's context error
	s := startTest(t, Config{Dispatch: func(ctx context.Context, c Call) Answer {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return Answer{Text: "stopped"}
	}}, 0)
	s.BeginRun()
	session := initSession(t, s)
	var wg sync.WaitGroup
	wg.Go(func() { _ = rpcErr(s, session, callBody(41, "bash", "")) })
	<-started
	if ex := rpc(t, s, session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"interrupted"}}`); ex.status != 202 {
		t.Errorf("notifications/cancelled: %d %q", ex.status, ex.body)
	}
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("dispatch context: %v", err)
	}
	wg.Wait()
}
