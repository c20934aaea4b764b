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

// ticket is a place in the queue.
type ticket struct {
	q    *queue
	turn chan struct{} // closed when the turn is handed over; nil: held from the start
}

// take joins the queue at once, behind every earlier caller.
func (q *queue) take() ticket {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.busy {
		q.busy = true
		return ticket{q: q}
	}
	ch := make(chan struct{})
	q.waiters = append(q.waiters, ch)
	return ticket{q: q, turn: ch}
}

// wait blocks until the ticket's turn. It returns ctx's error, or errClosed
// once quit is closed, if either comes first; the turn is then given up and
// must not be released.
func (t ticket) wait(ctx context.Context, quit <-chan struct{}) error {
	if t.turn == nil {
		return nil
	}
	var err error
	select {
	case <-t.turn:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-quit:
		err = errClosed
	}
	q := t.q
	q.mu.Lock()
	for i, w := range q.waiters {
		if w == t.turn {
			q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
			q.mu.Unlock()
			return err
		}
	}
	q.mu.Unlock()
	// The turn was handed over while we gave up: pass it on.
	q.release()
	return err
}

// release hands the turn to the oldest waiter, or frees it.
func (q *queue) release() {
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
