package capsule

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/session"
)

// Config is what Serve needs besides the launch and the listener.
type Config struct {
	// Bind is the door's bind address as the user gave it (an IP literal or
	// localhost); "" means 127.0.0.1. It shapes the door's URL (DOOR-1) and
	// decides W-SEC-… for a door open beyond loopback without authentication.
	Bind string
	// Home is $MURMUR_HOME, where the running record goes (SES-6).
	Home string
	// Stdout receives the announcement and, unless JSON, each task's result
	// text; Stderr the warnings. A write that fails is appended to the
	// session's logs/bootstrap.log instead and never stops it (CLI-4).
	Stdout, Stderr io.Writer
	// Progress, when set, hears the loop wait on the model.
	Progress session.Progress
	// JSON announces the readiness line only (CLI-4) and prints no result
	// text; otherwise the human lines (CLI-3), more of them with Verbose.
	JSON, Verbose bool
	// MaxConnections caps the door's open connections; 0 is the door's
	// default.
	MaxConnections int
	// Mur is the mur executable delegated children run; "" is
	// os.Executable().
	Mur string
	// OwnsDescendants is set by the process a capsule is alone in (mur run):
	// its tool processes get a cgroup, and the session's end stops every
	// process below this one, adopted orphans included.
	OwnsDescendants bool
	// Exit, when set, ends the process at once with a code: after a first
	// cancel, on Abort or once StopGrace has passed (143, SES-8), and at the
	// formation's exit timer (LIFE-4). What runs below the capsule is killed
	// first when it owns its descendants.
	Exit func(code int)
	// Abort, closed after ctx has ended, ends the wind-down at once: a second
	// signal (SES-8).
	Abort <-chan struct{}
	// StopGrace bounds the wind-down after ctx ends; 0 is SES-8's 20 s.
	StopGrace time.Duration
	// Serving, when set, is told where the capsule serves once its door
	// does and its running record is written, before it is announced: an
	// in-process caller's readiness line.
	Serving func(Serving)
}

// Serving is a capsule whose door serves.
type Serving struct {
	URL, SessionID, Workdir, RecordsDir string
	// Tokens are the door's tokens under network.authentication, the
	// operator's first; none on a public door.
	Tokens []door.Token
}

// Result is how a served capsule ended.
type Result struct {
	session.Result
	// SessionID, Workdir and RecordsDir name the session that ran.
	SessionID, Workdir, RecordsDir string
}

// stopGrace is SES-8's bound on the wind-down after a first signal.
const stopGrace = 20 * time.Second

// errAbandoned is Serve's error when the wind-down was cut short and no
// Exit was configured to end the process.
var errAbandoned = errors.New("the session's wind-down was abandoned")

// Serve runs the launch's session behind a door on ln until the session ends
// (LOOP-20) or ctx ends, which winds it down as a first SIGTERM does
// (SES-8). In order: the warnings are printed, the session starts, the door
// serves, the running record is written, the capsule is announced, tasks run;
// at the end the door shuts down, what the tools left running is stopped and
// the running record is removed. Serve owns ln and l from the call on. The
// error is a failure to start (the session or its door) or E-RUN-007; a
// session that ran reports its ending in Result.
func Serve(ctx context.Context, l *session.Launch, ln net.Listener, cfg Config) (Result, error) {
	c := &capsule{cfg: cfg, l: l}
	if c.cfg.Bind == "" {
		c.cfg.Bind = "127.0.0.1"
	}
	c.stdout = &lineSink{w: cfg.Stdout}
	c.stderr = &lineSink{w: cfg.Stderr}
	if l.Exit == nil && cfg.Exit != nil {
		l.Exit = c.exitNow
	}
	for _, w := range l.Warnings {
		fmt.Fprint(c.stderr, w.Render())
	}
	if !IsLoopback(c.cfg.Bind) && l.Manifest.Network.Authentication == nil {
		w := diag.SecOpenDoor(c.cfg.Bind)
		fmt.Fprint(c.stderr, w.Render())
		l.Warnings = append(l.Warnings, w)
	}
	url := DoorURL(c.cfg.Bind, ln.Addr().(*net.TCPAddr))
	sc := session.StartConfig{URL: url, Home: cfg.Home, Stderr: c.stderr, Cgroup: cfg.OwnsDescendants,
		Verbose: cfg.Verbose, Progress: cfg.Progress, Mur: cfg.Mur}
	if !cfg.JSON {
		sc.Results = c.stdout
	}
	sess, err := session.Start(l, sc)
	if err != nil {
		ln.Close()
		return Result{}, err
	}
	c.stdout.setBootstrap(sess.Bootstrap)
	c.stderr.setBootstrap(sess.Bootstrap)
	c.setCgroup(sess.Cgroup())
	srv, tokens, err := serveDoor(sess, l, ln, url, cfg.Home, cfg.MaxConnections)
	if err != nil {
		sess.Stop(session.BySignal)
		sess.Run()
		c.endDescendants()
		return Result{}, err
	}
	writeRunning(c.stderr, sess, l, cfg.Home, url, tokens)
	if cfg.Serving != nil {
		cfg.Serving(Serving{URL: url, SessionID: sess.ID(), Workdir: sess.Workdir(), RecordsDir: sess.RecordsDir(), Tokens: tokens})
	}
	announce(c.stdout, cfg.JSON, cfg.Verbose, sess, l, url)

	done := make(chan session.Result, 1) // buffered: Run's goroutine never blocks
	go func() { done <- sess.Run() }()
	var res session.Result
	select {
	case res = <-done:
	case <-ctx.Done():
		sess.Stop(session.BySignal)
		var ok bool
		if res, ok = c.windDown(done); !ok {
			return Result{}, errAbandoned
		}
	}
	shutdown(srv)
	c.endDescendants()
	removeRunning(cfg.Home, sess.ID())
	out := Result{Result: res, SessionID: sess.ID(), Workdir: sess.Workdir(), RecordsDir: sess.RecordsDir()}
	return out, res.Err
}

// capsule is one Serve call's state.
type capsule struct {
	cfg            Config
	l              *session.Launch
	stdout, stderr *lineSink
	mu             sync.Mutex
	cg             *proc.Cgroup // the tool processes' cgroup once the session made it; under mu
}

func (c *capsule) setCgroup(cg *proc.Cgroup) {
	c.mu.Lock()
	c.cg = cg
	c.mu.Unlock()
}

func (c *capsule) cgroup() *proc.Cgroup {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cg
}

// windDown waits for the session's end after ctx ended: Abort, or the
// grace passing, ends the process at once with 143 (SES-8). ok is false when
// it was cut short and there is no Exit.
func (c *capsule) windDown(done <-chan session.Result) (session.Result, bool) {
	grace := c.cfg.StopGrace
	if grace == 0 {
		grace = stopGrace
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case res := <-done:
		return res, true
	case <-c.cfg.Abort:
	case <-t.C:
	}
	c.exitNow(143)
	return session.Result{}, false
}

// endDescendants is the session's end for what its tools left, when the
// capsule owns its descendants: every process below this one — adopted
// orphans included — gets SIGTERM, SIGKILL after SES-8's 2 s, and the cgroup
// is killed and removed (the seed: a process that left the group "is not
// reached; the session's end kills it").
func (c *capsule) endDescendants() {
	if !c.cfg.OwnsDescendants {
		return
	}
	cg := c.cgroup()
	proc.StopDescendants(proc.StopGrace, cg)
	cg.Remove()
}

// exitNow ends the process at once through Exit; what runs below it is
// SIGKILLed first, so nothing outlives it. Without Exit it does nothing.
func (c *capsule) exitNow(code int) {
	if c.cfg.Exit == nil {
		return
	}
	if c.cfg.OwnsDescendants {
		cg := c.cgroup()
		proc.StopDescendants(0, cg)
		cg.Remove()
	}
	c.cfg.Exit(code)
}

// lineSink writes a stream that may be closed: a failed write goes to
// logs/bootstrap.log once the session exists (CLI-4).
type lineSink struct {
	mu        sync.Mutex
	w         io.Writer
	bootstrap func(string)
}

func (s *lineSink) setBootstrap(f func(string)) {
	s.mu.Lock()
	s.bootstrap = f
	s.mu.Unlock()
}

func (s *lineSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return len(p), nil
	}
	if _, err := s.w.Write(p); err != nil && s.bootstrap != nil {
		s.bootstrap(string(p))
	}
	return len(p), nil
}
