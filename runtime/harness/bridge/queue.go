package bridge

import (
	"context"
	"sync"
)

// queue lets one call run at a time and hands the turn to the waiting calls
// in the order they arrived (BRG-5: "a second call waits"). sync.Mutex
// promises no order, so the waiters are a list.
type queue struct {
	mu      sync.Mutex
	busy    bool
	waiters []chan struct{} // closed to hand the turn over; oldest first
}

// lock takes the turn, waiting behind every earlier caller. It returns
// ctx's error, or errClosed once quit is closed, if either comes first;
// the turn is then not held.
func (q *queue) lock(ctx context.Context, quit <-chan struct{}) error {
	q.mu.Lock()
	if !q.busy {
		q.busy = true
		q.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	q.waiters = append(q.waiters, ch)
	q.mu.Unlock()
	var err error
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-quit:
		err = errClosed
	}
	q.mu.Lock()
	for i, w := range q.waiters {
		if w == ch {
			q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
			q.mu.Unlock()
			return err
		}
	}
	q.mu.Unlock()
	// The turn was handed over while we gave up: pass it on.
	q.unlock()
	return err
}

// unlock hands the turn to the oldest waiter, or frees it.
func (q *queue) unlock() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiters) == 0 {
		q.busy = false
		return
	}
	next := q.waiters[0]
	q.waiters = q.waiters[1:]
	close(next)
}
