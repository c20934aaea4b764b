package tasktable

import (
	"context"
	"io"
	"slices"

	"github.com/murmur-go/mur/a2a"
)

// watchHub holds the session's numbered stream/watch frames (door.md SSE-7,
// SSE-9) and its live watchers. Guarded by Registry.mu.
type watchHub struct {
	seq uint64                                  // the last id issued
	buf [a2a.WatchReplayCapacity]a2a.WatchFrame // ring of the newest numbered frames
	// A status frame no watcher needed yet is held as its value and encoded
	// when one asks for it (most sessions have no watcher): unencoded[i]
	// marks buf[i], whose data is then status[i]'s.
	status    [a2a.WatchReplayCapacity]a2a.StatusFrame
	unencoded [a2a.WatchReplayCapacity]bool
	start, n  int // the oldest frame's index in buf, and how many are held
	watchers  []*Watcher
	closed    bool // capsule-closed was written
}

func newWatchHub() watchHub { return watchHub{} }

// at returns the i-th held frame, oldest first.
func (h *watchHub) at(i int) a2a.WatchFrame {
	j := (h.start + i) % len(h.buf)
	if h.unencoded[j] {
		h.buf[j] = frame(h.buf[j].ID, h.buf[j].Event, h.status[j])
		h.unencoded[j], h.status[j] = false, a2a.StatusFrame{}
	}
	return h.buf[j]
}

// held returns the held frames with an id above after, oldest first.
func (h *watchHub) held(after uint64) []a2a.WatchFrame {
	var out []a2a.WatchFrame
	for i := 0; i < h.n; i++ {
		if f := h.at(i); f.ID > after {
			out = append(out, f)
		}
	}
	return out
}

// Watcher is one stream/watch connection's frame queue (SSE-6, SSE-9).
type Watcher struct {
	r      *Registry
	replay []a2a.WatchFrame // frames due before any live one
	live   []a2a.WatchFrame
	missed uint64        // live frames dropped since the last delivery
	notify chan struct{} // one pending wake-up is enough: Next rechecks the queues
	ended  bool          // Close was called, or capsule-closed was delivered
}

// Watch opens a watcher resuming after lastEventID (Last-Event-ID; 0 when
// absent): an empty buffer replays nothing; an id never issued, or one whose
// successors were evicted, replays a gap frame and then the whole buffer;
// otherwise every buffered frame with a greater id (SSE-9).
func (r *Registry) Watch(lastEventID uint64) *Watcher {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := &r.watch
	w := &Watcher{r: r, notify: make(chan struct{}, 1)}
	if h.n > 0 {
		first := h.at(0).ID
		if lastEventID > h.seq || lastEventID+1 < first {
			w.replay = append(w.replay, frame(0, a2a.FrameGap, a2a.GapFrame{FirstAvailableID: first}))
			w.replay = append(w.replay, h.held(0)...)
		} else {
			w.replay = h.held(lastEventID)
		}
	}
	if h.closed {
		w.live = append(w.live, frame(0, a2a.FrameCapsuleClosed, struct{}{}))
	} else {
		h.watchers = append(h.watchers, w)
	}
	return w
}

// Next returns the watcher's next frame, waiting for one. After it returned
// capsule-closed, or after Close, it returns io.EOF; ctx's error when ctx ends.
func (w *Watcher) Next(ctx context.Context) (a2a.WatchFrame, error) {
	for {
		w.r.mu.Lock()
		if w.ended {
			w.r.mu.Unlock()
			return a2a.WatchFrame{}, io.EOF
		}
		if len(w.replay) > 0 {
			f := w.replay[0]
			w.replay = w.replay[1:]
			w.r.mu.Unlock()
			return f, nil
		}
		if w.missed > 0 {
			f := frame(0, a2a.FrameLagged, a2a.LaggedFrame{Missed: w.missed})
			w.missed = 0
			w.r.mu.Unlock()
			return f, nil
		}
		if len(w.live) > 0 {
			f := w.live[0]
			w.live = w.live[1:]
			if f.Event == a2a.FrameCapsuleClosed {
				w.ended = true
			}
			w.r.mu.Unlock()
			return f, nil
		}
		w.r.mu.Unlock()
		select {
		case <-w.notify:
		case <-ctx.Done():
			return a2a.WatchFrame{}, ctx.Err()
		}
	}
}

// Close detaches the watcher; Next then returns io.EOF. Idempotent.
func (w *Watcher) Close() {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	w.ended = true
	h := &w.r.watch
	h.watchers = slices.DeleteFunc(h.watchers, func(x *Watcher) bool { return x == w })
	w.wake()
}

func (w *Watcher) wake() {
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// push queues a live frame; past the lag limit the oldest numbered one is
// dropped and counted for the next lagged frame (SSE-9). Caller holds r.mu.
func (w *Watcher) push(f a2a.WatchFrame) {
	w.live = append(w.live, f)
	if len(w.live) > a2a.StreamLagLimit {
		w.live = w.live[1:]
		w.missed++
	}
	w.wake()
}

// frame encodes data as the frame's one-line JSON object, without HTML
// escaping: a tool result's "<untrusted-content …>" fence and a reply's '&'
// reach the watcher as written, as on every other door answer.
func frame(id uint64, event string, data any) a2a.WatchFrame {
	b, err := a2a.Marshal(data)
	if err != nil {
		b = []byte("{}")
	}
	return a2a.WatchFrame{ID: id, Event: event, Data: b}
}

// emit numbers a frame, buffers it for replay and queues it on every
// watcher. Caller holds r.mu.
func (r *Registry) emit(event string, data any) {
	h := &r.watch
	if h.closed {
		return
	}
	h.seq++
	f := frame(h.seq, event, data)
	h.hold(f)
	for _, w := range h.watchers {
		w.push(f)
	}
}

// emitStatus is emit for a status frame, whose encoding waits for a watcher
// when there is none. Caller holds r.mu.
func (r *Registry) emitStatus(sf a2a.StatusFrame) {
	h := &r.watch
	if h.closed {
		return
	}
	if len(h.watchers) > 0 {
		r.emit(a2a.FrameStatus, sf)
		return
	}
	h.seq++
	j := h.hold(a2a.WatchFrame{ID: h.seq, Event: a2a.FrameStatus})
	h.status[j], h.unencoded[j] = sf, true
}

// hold puts f in the ring, in place of the oldest frame when it is full,
// and returns its index in buf.
func (h *watchHub) hold(f a2a.WatchFrame) int {
	var j int
	if h.n == len(h.buf) {
		j = h.start
		h.start = (h.start + 1) % len(h.buf)
	} else {
		j = (h.start + h.n) % len(h.buf)
		h.n++
	}
	h.buf[j], h.unencoded[j], h.status[j] = f, false, a2a.StatusFrame{}
	return j
}

// Frame writes a numbered frame the runtime produces — "artifact" (one tool
// result) or "text" — to every watcher (door.md SSE-8).
func (r *Registry) Frame(event string, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emit(event, data)
}

// CloseFrames ends the session's frame stream: every watcher gets
// capsule-closed ({}) after what it holds; later watchers get it after their
// replay (SSE-6).
func (r *Registry) CloseFrames() {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := &r.watch
	if h.closed {
		return
	}
	h.closed = true
	for _, w := range h.watchers {
		w.live = append(w.live, frame(0, a2a.FrameCapsuleClosed, struct{}{}))
		w.wake()
	}
	h.watchers = nil
}

// statusFrame writes the murmur status frame of e's current status (SSE-8).
// Caller holds r.mu.
func (r *Registry) statusFrame(e *entry) {
	st := a2a.WatchStatus{State: e.task.Status.State.MurmurWord()}
	if m := e.task.Status.Message; m != nil {
		s := a2a.Text(m.Parts)
		st.Message = &s
	}
	if e.task.Status.State == a2a.TaskStateCompleted {
		if a := e.task.Artifact(a2a.ArtifactResponse); a != nil {
			s := a2a.Text(a.Parts)
			st.Response = &s
		}
	}
	r.emitStatus(a2a.StatusFrame{ID: e.task.ID, ContextID: e.task.ContextID, Status: st,
		Final: e.task.Status.State.Terminal()})
}
