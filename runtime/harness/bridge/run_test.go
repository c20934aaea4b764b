package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests here force the interleavings of a call with the run's end and
// with the attribution wait (BRG-6, BRG-7) instead of hoping a loaded
// scheduler produces them: they drive Server.call directly, without the
// listener, mostly in a synctest bubble (whose clock moves only when every
// goroutine in it waits, and where synctest.Wait says a call is parked).

// bare is a Server without its listener or any MCP session: its calls are
// made with s.call. Built inside a bubble, its channels and timers are the
// bubble's.
func bare(cfg Config) *Server {
	if cfg.Dispatch == nil {
		cfg.Dispatch = echo
	}
	cfg.Version = "0.1.0"
	cfg.Logger = slog.New(slog.DiscardHandler)
	s := &Server{cfg: cfg, quit: make(chan struct{}), attrWait: attributionWait}
	s.runs.init()
	s.mcp = s.newMCP()
	return s
}

// claudeCall is a tools/call of bash as claude sends it, with its tool_use
// id in _meta.
func claudeCall(toolUseID string) *mcp.CallToolParamsRaw {
	return &mcp.CallToolParamsRaw{Name: "bash", Arguments: json.RawMessage(`{}`),
		Meta: mcp.Meta{"claudecode/toolUseId": toolUseID}}
}

// recorder is a Dispatch that hands each call it gets to the test.
func recorder() (Dispatcher, <-chan Call) {
	calls := make(chan Call, 4) // more than any test's calls
	return func(ctx context.Context, c Call) Answer {
		calls <- c
		return echo(ctx, c)
	}, calls
}

// TestRunTakenAtArrival: a call belongs to the run in progress when it
// arrives, which is when Activity hears it. EndRun right after that report
// (here: from inside it, the tightest interleaving) leaves the call in that
// run: it takes the run's newest turn and is refused as one whose run ended
// (BRG-6, BRG-7). Reading the run after the report, as 37dafce did, made it
// a call of no run (turn -1): TestAttributionWaitsForRunEnd's flake.
func TestRunTakenAtArrival(t *testing.T) {
	dispatch, calls := recorder()
	var s *Server
	s = bare(Config{Dispatch: dispatch, Activity: func(n int) {
		if n == 1 {
			s.EndRun()
		}
	}})
	s.BeginRun()
	s.Turn(4)
	if _, err := s.call(t.Context(), claudeCall("toolu_x")); err != nil {
		t.Fatal(err)
	}
	if c := <-calls; c.Refusal != RefusalNoRun || c.ToolCallID != "toolu_x" || c.Turn != 4 {
		t.Errorf("dispatched as %+v, want refused in its run's newest turn, 4", c)
	}
}

// TestRunEndStopsTheWait: a call parked waiting for its tool_use id stops
// waiting the moment its run ends, at no tick of the clock, takes the
// newest turn and is refused; it never reaches Dispatch before (BRG-6,
// BRG-7).
func TestRunEndStopsTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dispatch, calls := recorder()
		s := bare(Config{Dispatch: dispatch})
		s.BeginRun()
		s.Turn(4)
		start := time.Now()
		done := make(chan struct{})
		go func() {
			defer close(done)
			if _, err := s.call(t.Context(), claudeCall("toolu_x")); err != nil {
				t.Error(err)
			}
		}()
		synctest.Wait() // the call is parked in its attribution wait
		select {
		case c := <-calls:
			t.Fatalf("dispatched while its id was awaited: %+v", c)
		default:
		}
		s.EndRun()
		<-done
		if c := <-calls; c.Refusal != RefusalNoRun || c.Turn != 4 {
			t.Errorf("dispatched as %+v, want refused in the newest turn, 4", c)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("the wait ended after %v, not with the run", d)
		}
	})
}

// TestAttributionWait: the wait for a tool_use id is attributionWait
// exactly: an id reported an instant before it ends gives the call its
// turn; a call whose id is never reported takes the newest turn when it
// ends, not before (BRG-6).
func TestAttributionWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dispatch, calls := recorder()
		s := bare(Config{Dispatch: dispatch})
		s.BeginRun()
		s.Turn(1)
		call := func(id string) <-chan struct{} {
			done := make(chan struct{})
			go func() {
				defer close(done)
				if _, err := s.call(t.Context(), claudeCall(id)); err != nil {
					t.Error(err)
				}
			}()
			return done
		}

		done := call("toolu_late")
		time.Sleep(attributionWait - time.Nanosecond) // fake time: the call still waits
		s.ToolUse(3, "toolu_late", "bash")
		<-done
		if c := <-calls; c.Turn != 3 || c.Refusal != "" {
			t.Errorf("named an instant before the wait ends: %+v, want turn 3", c)
		}

		start := time.Now()
		done = call("toolu_never")
		synctest.Wait()
		if len(calls) != 0 {
			t.Fatal("a call whose id was never reported did not wait")
		}
		<-done
		if c := <-calls; c.Turn != 3 || c.Refusal != "" {
			t.Errorf("never named: %+v, want the newest turn, 3", c)
		}
		if d := time.Since(start); d != attributionWait {
			t.Errorf("never named: waited %v, want %v", d, attributionWait)
		}
		s.EndRun()
	})
}
