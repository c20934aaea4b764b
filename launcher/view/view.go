package view

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/murmur-go/mur/runtime/murhome"
)

// DefaultPoll is how often a view reads its members' traces for new
// records; running records and records directories are looked at every
// discoverEvery polls.
const DefaultPoll = 100 * time.Millisecond

const discoverEvery = 5

// Config configures a View.
type Config struct {
	Home   string // $MURMUR_HOME; required
	Target Target // what to show, from Locate; required
	Token  string // the view token the URL carries; required (NewToken)
	Poll   time.Duration
	Logger *slog.Logger // nil discards
}

// View is one `mur view` server: it follows the target's member sessions
// (their traces, and while they run their doors' stream/watch) and serves
// the page. Start it with Run.
type View struct {
	cfg Config
	log *slog.Logger
	m   *model
	f   *finder

	sessions map[string]*session // by session id; owned by the poller
	order    []*session
	watching map[string]context.CancelFunc // session id → its watcher's stop
	polls    int
}

// New validates cfg and reads everything already recorded, so the first
// page shows it. It fails with E-RUN-028 when the running records cannot
// be read.
func New(cfg Config) (*View, error) {
	switch {
	case cfg.Home == "":
		return nil, errors.New("view: Config.Home is required")
	case cfg.Target.ID == "" || cfg.Target.Kind != KindFormation && cfg.Target.Kind != KindSession:
		return nil, errors.New("view: Config.Target is required")
	case cfg.Token == "":
		return nil, errors.New("view: Config.Token is required")
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v := &View{cfg: cfg, log: log, m: newModel(cfg.Target.Kind, cfg.Target.ID),
		f: newFinder(cfg.Home, cfg.Target.Kind, cfg.Target.ID), sessions: map[string]*session{}, watching: map[string]context.CancelFunc{}}
	if err := v.discover(nil); err != nil {
		return nil, err
	}
	v.readTraces()
	return v, nil
}

// Run serves the view on ln until ctx ends, then shuts the server down
// (open event streams end at once), stops every door watcher and returns.
// The poller, the flusher and each watcher are goroutines Run owns and
// waits for. It returns nil after ctx ended, or the server's error.
func (v *View) Run(ctx context.Context, ln net.Listener) error {
	port := ln.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{
		Handler:           newHandler(v.m, v.cfg.Token, port),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx }, // ends every stream at shutdown
		ErrorLog:          slog.NewLogLogger(v.log.Handler(), slog.LevelDebug),
	}
	var wg sync.WaitGroup
	wg.Go(func() { v.poll(ctx, &wg) })
	wg.Go(func() { v.flushLoop(ctx) })
	serveErr := make(chan error, 1) // Serve's one result
	go func() { serveErr <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}
	cancel()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	_ = srv.Shutdown(sctx)
	if err == nil {
		if e := <-serveErr; !errors.Is(e, http.ErrServerClosed) {
			err = e
		}
	}
	wg.Wait()
	v.m.mu.Lock()
	v.m.hub.closeAll()
	v.m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("serve the view: %w", err)
	}
	return nil
}

// poll reads new trace records every Poll and discovers sessions every
// discoverEvery polls, until ctx ends. Watchers it starts join wg.
func (v *View) poll(ctx context.Context, wg *sync.WaitGroup) {
	tick := time.NewTicker(v.cfg.Poll)
	defer tick.Stop()
	for {
		v.readTraces()
		if v.polls%discoverEvery == 0 {
			if err := v.discover(func(s *session, url, token string) {
				wctx, stop := context.WithCancel(ctx)
				v.watching[s.id] = stop
				wg.Go(func() { v.m.follow(wctx, s, url, token) })
			}); err != nil {
				v.log.Warn("view discovery", "err", err)
			}
		}
		v.polls++
		select {
		case <-ctx.Done():
			for _, stop := range v.watching {
				stop()
			}
			return
		case <-tick.C:
		}
	}
}

// flushLoop publishes the model's changes as they happen.
func (v *View) flushLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-v.m.changed:
			v.m.flush()
		}
	}
}

// readTraces applies what each unfinished session appended to its trace.
func (v *View) readTraces() {
	for _, s := range v.order {
		v.readTrace(s)
	}
}

// readTrace applies what session s appended to its trace since the last read.
func (v *View) readTrace(s *session) {
	if s.ended {
		return
	}
	recs, err := s.tail.next()
	if err != nil {
		v.log.Debug("view trace read", "path", s.trace, "err", err)
	}
	if len(recs) > 0 {
		v.m.apply(s, recs)
	}
}

// discover looks for the target's sessions: new ones are followed, a
// running member's door is watched (watch is nil before Run), and a
// session whose process is gone without a session_end is marked ended.
func (v *View) discover(watch func(s *session, url, token string)) error {
	found, starting, live, err := v.f.find()
	if err != nil {
		return err
	}
	running := map[string]bool{}
	for _, fd := range found {
		s, ok := v.sessions[fd.id]
		if !ok {
			trace := filepath.Join(fd.recordsDir, murhome.TraceFile)
			s = &session{id: fd.id, trace: trace, tail: tail{path: trace}, entry: fd.entry}
			v.sessions[fd.id] = s
			v.order = append(v.order, s)
		}
		if fd.rec == nil {
			continue
		}
		running[fd.id] = true
		v.m.setDoor(s, true)
		if _, ok := v.watching[fd.id]; !ok && watch != nil && !s.ended {
			watch(s, fd.rec.URL, fd.rec.Tokens.Operator())
		}
	}
	for _, s := range v.order {
		if running[s.id] {
			continue
		}
		if stop, ok := v.watching[s.id]; ok {
			stop()
			delete(v.watching, s.id)
		}
		if v.m.setDoor(s, false) || !live {
			v.readTrace(s) // its session_end, if it wrote one, names how it ended
			v.m.markGone(s)
		}
	}
	v.m.mu.Lock()
	for _, n := range starting {
		v.m.member(n)
	}
	v.m.setLive(live)
	v.m.mu.Unlock()
	return nil
}
