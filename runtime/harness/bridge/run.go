package bridge

import (
	"context"
	"errors"
	"sync"
	"time"
)

var (
	// errClosed ends a wait when the server closes.
	errClosed = errors.New("bridge: closed")
	// errRunEnded is the cause a call's dispatch context is cancelled with
	// when its run ends.
	errRunEnded = errors.New("bridge: the harness run ended")
)

// runs is the run in progress, if any, and the turns its event stream has
// reported (BRG-6, BRG-7).
type runs struct {
	mu      sync.Mutex
	gen     uint64                  // counts BeginRun calls; a call belongs to the generation it arrived in
	active  bool                    // a run is in progress
	ended   chan struct{}           // closed when run gen ends
	changed chan struct{}           // closed and replaced whenever Turn reports something
	newest  int                     // the newest turn opened in run gen; -1 before the first
	ids     map[string]int          // claude: tool call id → turn
	uses    map[string][]int        // codex: tool name → turns of the uses not yet matched, in order
	cancel  context.CancelCauseFunc // the dispatch in flight, if any
}

func (r *runs) init() {
	r.ended = make(chan struct{})
	close(r.ended) // no run yet
	r.changed = make(chan struct{})
	r.newest = -1
}

// BeginRun starts a harness run: calls are answered from now on, and
// attributed to the turns Turn reports for this run (BRG-6, BRG-7). A run
// still in progress is ended first.
func (s *Server) BeginRun() {
	s.EndRun()
	r := &s.runs
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gen++
	r.active = true
	r.ended = make(chan struct{})
	r.newest = -1
	r.ids = map[string]int{}
	r.uses = map[string][]int{}
}

// EndRun ends the run in progress: the dispatch in flight has its context
// cancelled, calls waiting to be attributed stop waiting, later calls are
// refused (BRG-7), and the run's MCP sessions are closed. Closing a session
// waits for its requests in flight (the SDK's rule), so EndRun returns once
// every call that arrived in the run has been answered: call it where no
// Dispatch waits on its caller. It does nothing without a run.
func (s *Server) EndRun() {
	if s.runs.end() {
		s.endSessions()
	}
}

// Turn reports from the harness's event stream that turn is open: the
// newest so far, unless a lower number (BRG-6, HEV-3). Outside a run it
// does nothing.
func (s *Server) Turn(turn int) { s.runs.report(turn, "", "") }

// ToolUse reports a tool call the event stream showed in turn (which it
// opens, as Turn does): by its tool call id when the line carries the id the
// call's _meta will (claude's tool_use block id), else by the bridge's tool
// name (codex's mcp_tool_call item, whose id is not the call's): such uses
// are matched to the run's codex calls of that name in order (BRG-6).
func (s *Server) ToolUse(turn int, toolCallID, name string) { s.runs.report(turn, toolCallID, name) }

// report records a turn and, when id or name is set, a tool use in it.
func (r *runs) report(turn int, id, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.active {
		return
	}
	r.newest = max(r.newest, turn)
	switch {
	case id != "":
		r.ids[id] = turn
	case name != "":
		r.uses[name] = append(r.uses[name], turn)
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// end ends the run in progress; it reports whether there was one.
func (r *runs) end() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.active {
		return false
	}
	r.active = false
	close(r.ended)
	if r.cancel != nil {
		r.cancel(errRunEnded)
		r.cancel = nil
	}
	return true
}

// current returns the generation of the run in progress, ok false without one.
func (r *runs) current() (gen uint64, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gen, r.active
}

// key is how a call finds its turn (BRG-6): by id (claude), by name in
// order (codex), or not at all (a call with no id takes the newest turn).
type key struct {
	id     string
	byName bool
	name   string
}

// keyOf is c's key, from which _meta field carried its id.
func keyOf(c Call, fromCodex bool) key {
	switch {
	case c.ToolCallID == "":
		return key{}
	case fromCodex:
		return key{byName: true, name: c.Name}
	}
	return key{id: c.ToolCallID}
}

// attribute returns the turn of run gen that k names, waiting up to wait
// for the event stream to report it, then the newest turn; -1 when the run
// opened none (BRG-6).
func (r *runs) attribute(ctx context.Context, quit <-chan struct{}, gen uint64, k key, wait time.Duration) int {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		r.mu.Lock()
		if gen != r.gen || !r.active || k == (key{}) {
			n := r.newest
			r.mu.Unlock()
			return n
		}
		if t, ok := r.ids[k.id]; ok && !k.byName {
			r.mu.Unlock()
			return t
		}
		if q := r.uses[k.name]; k.byName && len(q) > 0 {
			r.uses[k.name] = q[1:]
			r.mu.Unlock()
			return q[0]
		}
		changed, ended := r.changed, r.ended
		r.mu.Unlock()
		select {
		case <-changed:
			continue
		case <-ended:
		case <-timer.C:
		case <-ctx.Done():
		case <-quit:
		}
		k = key{} // the newest turn
	}
}

// dispatching derives the dispatch context of a call of run gen, which
// ends with the run. ok is false when run gen is no longer in progress.
func (r *runs) dispatching(ctx context.Context, gen uint64) (dctx context.Context, done func(), ok bool) {
	dctx, cancel := context.WithCancelCause(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if gen != r.gen || !r.active {
		cancel(errRunEnded)
		return dctx, func() {}, false
	}
	r.cancel = cancel
	return dctx, func() {
		r.mu.Lock()
		r.cancel = nil
		r.mu.Unlock()
		cancel(nil)
	}, true
}
