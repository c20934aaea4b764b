package bridge

import (
	"context"
	"errors"
	"testing"
)

// TestQueueGivesUp: a waiter that gives up leaves its place, the turn goes
// to the next in order, and a turn handed to a waiter as it gives up is
// passed on, never lost (BRG-5).
func TestQueueGivesUp(t *testing.T) {
	var q queue
	a, b, c := q.take(), q.take(), q.take()
	if err := a.wait(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := b.wait(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("b: %v", err)
	}
	q.release() // a's turn ends: c's, not b's
	if err := c.wait(t.Context(), nil); err != nil {
		t.Fatalf("c: %v", err)
	}
	d := q.take()
	q.release() // c's turn ends: d holds it now, d gives up with the turn in hand
	if err := d.wait(ctx, nil); err == nil {
		q.release()
	}
	quit := make(chan struct{})
	close(quit)
	if e := q.take(); e.turn != nil {
		t.Fatal("the turn was lost: the queue stays busy")
	} else if err := e.wait(ctx, quit); err != nil {
		t.Fatalf("a free turn waits: %v", err)
	}
	f := q.take()
	if err := f.wait(t.Context(), quit); !errors.Is(err, errClosed) {
		t.Fatalf("quit: %v", err)
	}
	q.release()
	if g := q.take(); g.turn != nil {
		t.Fatal("the queue stays busy after the last release")
	}
}
