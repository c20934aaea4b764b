package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// How long the model may be silent before the live status line
// shows, and how often it is redrawn.
const (
	statusAfter = 2 * time.Second
	statusEvery = time.Second
)

// liveStatus is `mur run`'s one-line live status on a terminal's stderr:
// once the model has not answered for statusAfter it shows
// "mur: waiting on model, <elapsed>", redrawn in place, and is cleared when
// the model answers. Every other stderr write clears it first, so lines
// never mix. It is a session.Progress and the stderr writer; it is made only
// when stderr is a terminal. Safe for concurrent use.
type liveStatus struct {
	mu    sync.Mutex
	w     io.Writer
	shown bool
	stop  chan struct{} // closed by ModelAnswered; nil while the model is not awaited
	done  chan struct{} // closed when the drawing goroutine has returned
}

func newLiveStatus(w io.Writer) *liveStatus { return &liveStatus{w: w} }

// ModelWaiting starts the goroutine that draws the line once since is
// statusAfter old; ModelAnswered stops and waits for it.
func (l *liveStatus) ModelWaiting(since time.Time) {
	l.mu.Lock()
	if l.stop != nil {
		l.mu.Unlock()
		return
	}
	stop, done := make(chan struct{}), make(chan struct{})
	l.stop, l.done = stop, done
	l.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTimer(statusAfter - time.Since(since))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			l.draw(time.Since(since))
			t.Reset(statusEvery)
		}
	}()
}

// ModelAnswered stops the drawing and clears the line.
func (l *liveStatus) ModelAnswered() {
	l.mu.Lock()
	stop, done := l.stop, l.done
	l.stop, l.done = nil, nil
	l.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-done
	l.mu.Lock()
	l.clearLocked()
	l.mu.Unlock()
}

func (l *liveStatus) draw(elapsed time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "\r\x1b[Kmur: waiting on model, %s", elapsed.Truncate(time.Second))
	l.shown = true
}

func (l *liveStatus) clearLocked() {
	if l.shown {
		_, _ = io.WriteString(l.w, "\r\x1b[K")
		l.shown = false
	}
}

// Write clears the status line, then writes p.
func (l *liveStatus) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
	return l.w.Write(p)
}
