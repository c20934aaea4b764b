package view

// subQueue is how many events a page's stream may fall behind before it is
// cut: a burst of a whole formation's changes fits (16 members, a few
// hundred calls and tasks changing at once); a page further behind than
// that reconnects and starts again from a fresh snapshot, as EventSource
// does by itself.
const subQueue = 4096

// hub fans events out to the open event streams. Guarded by model.mu.
type hub struct {
	subs map[*sub]struct{}
}

// sub is one open event stream. ch carries encoded events in order; gone is
// closed when the stream fell too far behind (or the view stops), after
// which ch receives nothing more.
type sub struct {
	ch   chan []byte
	gone chan struct{}
}

func newHub() hub { return hub{subs: map[*sub]struct{}{}} }

func (h *hub) add() *sub {
	s := &sub{ch: make(chan []byte, subQueue), gone: make(chan struct{})}
	h.subs[s] = struct{}{}
	return s
}

func (h *hub) remove(s *sub) {
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.gone)
	}
}

// publish queues evs on every stream, cutting a stream that has no room.
func (h *hub) publish(evs [][]byte) {
	if len(evs) == 0 {
		return
	}
	for s := range h.subs {
		for _, e := range evs {
			select {
			case s.ch <- e:
				continue
			default:
			}
			h.remove(s)
			break
		}
	}
}

// closeAll ends every stream (the view is stopping).
func (h *hub) closeAll() {
	for s := range h.subs {
		h.remove(s)
	}
}
