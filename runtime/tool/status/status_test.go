package status

import (
	"context"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/tool"
)

func ptr[T any](v T) *T { return &v }

func TestSessionStatusFull_STATUS1(t *testing.T) {
	start := time.Date(2026, 10, 20, 12, 30, 0, 0, time.UTC)
	now := start.Add(1834*time.Second + 900*time.Millisecond)
	snap := Snapshot{
		Now: now, SessionStart: start, TaskStart: ptr(start.Add(44 * time.Second)),
		Deadline:  ptr(time.Date(2026, 10, 20, 14, 0, 0, 0, time.UTC)),
		TurnsUsed: 42, KeepWorking: &Counter{Used: 3, Limit: 20}, DoneCheck: &Counter{Used: 1, Limit: 3},
		Context: &ContextInfo{UsedTokens: 61234, WindowTokens: 200000, BudgetTokens: 191808, BudgetBasis: "context_window_less_output_cap"},
		Input:   ptr(int64(812345)), Output: ptr(int64(23456)), Cached: ptr(int64(600000)), CacheWrite: ptr(int64(10000)),
		SpendTokens: 835801,
	}
	tl := New(func(*tool.CallContext) Snapshot { return snap })
	res := tl.Call(context.Background(), &tool.CallContext{TaskID: "tsk_a", Turn: 3}, nil)
	if res.Status != tool.Passed || res.IsError() || len(res.Notes) != 0 {
		t.Errorf("result = %+v", res)
	}
	golden.Check(t, "session_status_full", res.Data)
	if len(res.Records) != 1 || res.Records[0].Record.EventType() != "session_status" {
		t.Fatalf("records = %+v", res.Records)
	}
}

func TestSessionStatusNoneUnknown_STATUS1(t *testing.T) {
	start := time.Unix(1760000000, 0)
	snap := Snapshot{
		Now: start.Add(5 * time.Second), SessionStart: start, MaxTurns: ptr(10),
		Context: &ContextInfo{UsedTokens: 100, WindowTokens: 32000, BudgetTokens: 16000, BudgetBasis: "max_input_tokens", Actual: true},
		Input:   ptr(int64(80)), Output: ptr(int64(20)), Unreported: 1, SpendTokens: 100, Ceiling: ptr(int64(5000)),
	}
	golden.Check(t, "session_status_none", tool.JSON(Object(snap)))
	snap.Context = nil
	snap.Deadline = ptr(start.Add(-time.Second))
	golden.Check(t, "session_status_before_turn", tool.JSON(Object(snap)))
}

func TestSessionStatusQuotaOrder_STATUS1(t *testing.T) {
	used := 0.42
	mins := 300
	snap := Snapshot{Now: time.Unix(10, 0), SessionStart: time.Unix(0, 0),
		Quota:   []QuotaWindow{{Name: "five-hour", Used: &used, ResetsAt: "2026-10-20T15:00:00Z", WindowMinutes: &mins, State: QuotaOK}},
		Machine: &MachineSpend{TokensToday: 5, Ceiling: 100}}
	got := tool.JSON(Object(snap))
	want := `{"time":{"elapsed_secs":10,"task_elapsed_secs":"unknown","deadline":"none"},"turns":{"used":0,"cap":"none"},"keep_working":"none","done_check":"none","context":"unknown","quota":[{"name":"five-hour","used":0.42,"resets_at":"2026-10-20T15:00:00Z","window_minutes":300,"state":"ok"}],"tokens":{"input":"unknown","output":"unknown","cached":"unknown","cache_write":"unknown","unreported_calls":0},"spend":{"tokens":0,"ceiling":"none","machine":{"tokens_today":5,"ceiling":100}}}`
	if got != want {
		t.Errorf("status = %s\nwant %s", got, want)
	}
}
