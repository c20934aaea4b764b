package session

import (
	"github.com/murmur-go/mur/runtime/tool"
	"sync"
	"time"
)

// stats are the session's counters: spend (LOOP-18), provider token sums
// (STATUS-1), the last call's context, and session_end's totals (TRACE-4).
type stats struct {
	mu          sync.Mutex
	spent       int64 // LOOP-18 used: provider counts where reported, else estimates
	refused     bool  // a call was refused by the ceiling: every later one is too
	input       *int64
	output      *int64
	cached      *int64
	cacheWrite  *int64
	unreported  int
	lastContext *tool.ContextInfo
	turns       int   // inference lines (total_turns)
	inTokens    int64 // sums of task_end fields
	outTokens   int64
	toolCalls   int
	shellCalls  int
}

func addPtr(p **int64, v *int64) {
	if v == nil {
		return
	}
	if *p == nil {
		*p = new(int64)
	}
	**p += *v
}

// statusSnapshot measures the session for session-status (STATUS-1).
func (s *Session) statusSnapshot(t *taskRun) tool.StatusSnapshot {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	maxTurns := s.m.Inference.MaxTurns
	snap := tool.StatusSnapshot{
		Now: s.now(), SessionStart: s.start, Deadline: s.deadline, MaxTurns: &maxTurns,
		Input: s.stats.input, Output: s.stats.output, Cached: s.stats.cached, CacheWrite: s.stats.cacheWrite,
		Unreported: s.stats.unreported, SpendTokens: s.stats.spent,
	}
	if s.stats.lastContext != nil {
		c := *s.stats.lastContext
		snap.Context = &c
	}
	if c := s.m.Inference.MaxSessionTokens; c > 0 {
		snap.Ceiling = &c
	}
	if s.hx != nil { // PROC-19
		snap.Quota = s.hx.quotaNow()
	}
	if t != nil {
		// The harness's bridged calls read this on the bridge's goroutine
		// while the run's loop counts turns (process.md PROC-19).
		t.mu.Lock()
		defer t.mu.Unlock()
		ts := t.start
		snap.TaskStart = &ts
		snap.TurnsUsed = t.turns
		if s.hx != nil {
			snap.TurnsUsed = t.closed // turns the harness has closed (HEV-3)
		}
		if kw := s.m.Lifecycle.KeepWorking; kw != nil {
			snap.KeepWorking = &tool.StatusCounter{Used: t.keepUsed, Limit: kw.Limit}
		}
		if dc := s.m.Lifecycle.DoneCheck; dc != nil {
			snap.DoneCheck = &tool.StatusCounter{Used: t.doneReopens, Limit: dc.Limit}
		}
	}
	return snap
}

// elapsedMS is the milliseconds from start to now.
func elapsedMS(start, now time.Time) int64 { return now.Sub(start).Milliseconds() }
