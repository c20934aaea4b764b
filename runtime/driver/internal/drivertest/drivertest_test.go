package drivertest

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestSleeps(t *testing.T) {
	t.Parallel()
	var s Sleeps
	if err := s.Sleep(context.Background(), time.Second); err != nil {
		t.Errorf("Sleep() = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Sleep(ctx, 2*time.Second); err != context.Canceled {
		t.Errorf("Sleep(ended ctx) = %v, want context.Canceled", err)
	}
	got := s.Got()
	if want := []time.Duration{time.Second, 2 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("Got() = %v, want %v", got, want)
	}
	got[0] = 0
	if s.Got()[0] != time.Second {
		t.Error("Got() shares its slice")
	}
}

type failures []string

func (f failures) Failures() []string { return f }

// recorder counts Errorf calls.
type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errors++ }

func TestNoFailures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		f    failures
		want int
	}{{nil, 0}, {failures{"path /x, want /y"}, 1}} {
		r := &recorder{TB: t}
		NoFailures(r, tt.f)
		if r.errors != tt.want {
			t.Errorf("NoFailures(%q) reported %d errors, want %d", tt.f, r.errors, tt.want)
		}
	}
}
