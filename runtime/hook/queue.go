package hook

import (
	"context"
	"os"
	"sync"
)

// job is one event queued for an async hook.
type job struct {
	event   string
	payload any
}

// queue is an async hook's bounded, ordered job queue; its worker drains it
// one call at a time.
type queue struct {
	mu      sync.Mutex
	closed  bool
	closing chan struct{}  // closed by close: a sender waiting for room gives up
	senders sync.WaitGroup // enqueues under way; jobs is closed only after them
	jobs    chan job
	done    chan struct{} // closed when the worker has ended

	ctx    context.Context // the worker's calls; canceled by abandon
	cancel context.CancelFunc
}

// close ends the queue: the worker drains what is queued, then ends.
func (q *queue) close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	close(q.closing)
	q.mu.Unlock()
	q.senders.Wait()
	close(q.jobs)
}

// abandon ends the worker's call in flight and what is still queued.
func (q *queue) abandon() { q.cancel() }

// enqueue queues one event for h: under on_overflow drop a full queue
// discards it (hook_dispatch_error, arm queue-overflow); under block it
// waits for room. After Close nothing is queued.
func (s *Set) enqueue(h *Hook, q *queue, j job) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.senders.Add(1)
	q.mu.Unlock()
	defer q.senders.Done()
	select {
	case q.jobs <- j:
		return
	default:
	}
	if h.Spec.OnOverflow != "block" {
		s.fault(h, j.event, "queue-overflow", "the hook's queue of 1024 events was full; the event was dropped")
		return
	}
	select { // block: wait for room, or for the session's end
	case q.jobs <- j:
	case <-q.closing:
	}
}

// work is h's worker: one call at a time, in queue order, until the queue
// is closed and drained or abandoned.
func (s *Set) work(h *Hook, q *queue) {
	defer s.wg.Done()
	defer close(q.done)
	for j := range q.jobs {
		if q.ctx.Err() != nil {
			continue // abandoned: what is left is dropped
		}
		s.observeOne(q.ctx, h, j.event, j.payload)
	}
}

// logLine appends one line to the hook's log, if it has one.
func (h *Hook) logLine(text string) {
	if h.Spec.Log == "" {
		return
	}
	f, err := os.OpenFile(h.Spec.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(text + "\n")
}
