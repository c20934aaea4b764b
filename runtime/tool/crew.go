package tool

import (
	"context"
	"sync"
)

// Crew owns a Waiter's goroutines (tools.md RND-9): Go starts one whose
// context ends at Stop, not with the tool call that started it; Stop ends
// them all and waits for them. Its zero value is ready. Safe for concurrent
// use.
type Crew struct {
	mu      sync.Mutex
	wg      sync.WaitGroup
	stops   []context.CancelFunc
	stopped bool
}

// Go runs f on a goroutine of its own, with a context that keeps ctx's
// values but ends at Stop (at once when Stop came first).
func (c *Crew) Go(ctx context.Context, f func(context.Context)) {
	gctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.mu.Lock()
	if c.stopped {
		stop()
	}
	c.stops = append(c.stops, stop)
	c.mu.Unlock()
	c.wg.Go(func() {
		defer stop()
		f(gctx)
	})
}

// Stop ends every goroutine's context and waits for them to return.
func (c *Crew) Stop() {
	c.mu.Lock()
	c.stopped = true
	stops := c.stops
	c.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	c.wg.Wait()
}

// Stopped reports whether Stop was called: the task ended.
func (c *Crew) Stopped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}
