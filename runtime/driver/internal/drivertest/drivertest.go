// Package drivertest holds what the HTTP drivers' tests share: a recorder of
// DRV-4's retry waits and the check that a fake saw only well-formed
// requests. It is for tests only.
package drivertest

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Sleeps records DRV-4's retry waits instead of sleeping: pass its Sleep as
// a driver Config's Sleep. It is safe for concurrent use.
type Sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d and returns at once: ctx's error, if it has ended.
func (s *Sleeps) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return ctx.Err()
}

// Got returns a copy of the waits recorded so far, in order.
func (s *Sleeps) Got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// Failer is a fake server: it reports its check failures.
type Failer interface{ Failures() []string }

// NoFailures fails t (Errorf) if srv reports check failures.
func NoFailures(t testing.TB, srv Failer) {
	t.Helper()
	if f := srv.Failures(); len(f) > 0 {
		t.Errorf("fake check failures: %q", f)
	}
}
