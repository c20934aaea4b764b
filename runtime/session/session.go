package session

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/hook"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/toolset"
	"github.com/murmur-go/mur/runtime/trace"
)

// StartConfig is what Start needs besides the Launch: the door's address,
// which cmd/mur bound (MAN-4 step 10), and where human output goes.
type StartConfig struct {
	// URL is the door's URL in DOOR-1 form, http://127.0.0.1:<port>.
	URL string
	// Home is $MURMUR_HOME.
	Home string
	// Results, when set, receives each ended task's result text followed by
	// "\n" (CLI-3's human output). Writes that fail go to logs/bootstrap.log.
	Results io.Writer
	// Stderr receives warnings the loop raises (W-RUN-001, E-RUN-027).
	Stderr io.Writer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Mur is the mur executable delegated children run (tools.md DLG-3);
	// "" means os.Executable().
	Mur string
	// Cgroup makes a cgroup for the session's tool processes where the
	// machine lets it; only a process that owns its descendants
	// (mur run) sets it.
	Cgroup bool
	// Verbose (-v) also prints each driver retry on Stderr.
	Verbose bool
	// Progress, when set, hears when the loop starts waiting on the model
	// and when the model answers (cmd/mur's live status line).
	Progress Progress
}

// Progress hears the loop wait on the model. Calls come from the loop's
// goroutine, in order: ModelWaiting, then ModelAnswered.
type Progress interface {
	ModelWaiting(since time.Time)
	ModelAnswered()
}

// Session is one `mur run` session (SES-1): its directories, trace, task
// table, tools and agent loop. Create it with Start, serve its Registry at the
// door, then call Run. Its methods are safe for concurrent use.
type Session struct {
	recs records // the conversation records, by context id
	// resumeTaken is set once the resumed conversation went to its task (mu).
	resumeTaken bool
	id          string
	l           *Launch
	m           *manifest.Manifest
	cfg         StartConfig
	now         func() time.Time
	start       time.Time
	url         string
	workdir     string
	runtimeDir  string
	recordsDir  string
	logsDir     string
	system      string // LOOP-6: the same in every session of the capsule
	context     string // the [Session] block, sent after each task's first message

	tr      *trace.Writer
	otel    *telemetry.Provider // OTEL-2: spans, exported or not
	tracer  oteltrace.Tracer
	metrics *telemetry.Metrics
	reg     *tasktable.Registry
	tools   *tool.Registry
	specs   []driver.ToolSpec
	toolset *toolset.Set // the tools' services: background commands, the peer plane
	env     []string
	sandbox *proc.Sandbox // starts every tool process
	cgroup  *proc.Cgroup  // nil: none
	hub     *spawn.Hub    // the session's children; nil without capabilities.spawn.allow
	// hooks are the session's policy and observer hooks (runtime/hook):
	// nil without any; hookBoxes are their sandboxes.
	hooks     *hook.Set
	hookBoxes []*proc.Sandbox

	launchTask  string                // the launch task's id, "" without one
	lastSpan    oteltrace.SpanContext // the latest task's span (OTEL-1: a delegated child's completion carries it); under mu
	callsMu     sync.Mutex            // guards failedCalls: taken by the trace writer's observer, never around a write
	failedCalls []trace.MemberCall    // the launch task's member calls not ended completed

	deadline    *time.Time
	noticeAfter *time.Time // when the deadline notice becomes due
	noticeSecs  int64      // its margin in seconds
	noticeOnce  sync.Once  // NOTICE-3: once per session
	noticeAt    time.Time  // when the notice was handed over
	bootMu      sync.Mutex // guards bootstrap.log appends
	stopCtx     context.Context
	stopCancel  context.CancelFunc
	wg          sync.WaitGroup // the session's own goroutines (deadline, lifeline, trace watch)
	choices     *choices
	hx          *hsession // transport: process only (process.md)
	stats       stats
	mu          sync.Mutex
	current     *tasktable.Run
	curTask     *taskRun
	stopCause   string // "" until the session winds down
	stopped     bool   // a signal or lifeline: queued tasks read "…was stopped before…"
	begun       bool   // session_start is written
	formEnded   bool   // wound down by the formation lifeline (LIFE-3)
	deciding    string // LOOP-20: the first deciding task's non-ok status
	decidingMsg string
}

// ID is the session id (ses_…).
func (s *Session) ID() string { return s.id }

// Registry is the session's task table, for the door.
func (s *Session) Registry() *tasktable.Registry { return s.reg }

// RecordsDir is the records directory (SES-3).
func (s *Session) RecordsDir() string { return s.recordsDir }

// Workdir is the accessible workdir (SES-2).
func (s *Session) Workdir() string { return s.workdir }

// RuntimeDir is the runtime directory (SES-3).
func (s *Session) RuntimeDir() string { return s.runtimeDir }

// Launch is what Prepare resolved: the manifest, the formation member (nil
// outside a formation), the drivers.
func (s *Session) Launch() *Launch { return s.l }

// URL is the door's URL (DOOR-1 form).
func (s *Session) URL() string { return s.url }

// Start creates the session's directories (SES-3), writes session_start,
// runs retention (SES-9), stages the tools (STAGE-1) and submits the launch
// task (SES-4). Every failure here is a *diag.Diagnostic.
func Start(l *Launch, cfg StartConfig) (*Session, error) {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	s := &Session{id: a2a.NewID(a2a.PrefixSession), l: l, m: l.Manifest, cfg: cfg, now: now, url: cfg.URL, workdir: l.Workdir}
	s.start = now()
	s.stopCtx, s.stopCancel = context.WithCancel(context.Background())
	s.deadline = l.Opts.Deadline
	if l.createLock != nil {
		if err := l.createLock(); err != nil {
			return nil, err
		}
	}
	if err := s.makeDirs(); err != nil {
		return nil, err
	}
	for _, w := range l.Warnings {
		s.bootstrap(w.Render())
	}
	s.system = systemPrompt(s.m.Name, s.m.Version, l.Prompt)
	s.context = sessionContext(s.id, s.url, s.workdir)
	s.choices = newChoices(s.m, l.Drivers)
	if err := s.buildTools(); err != nil {
		return nil, err
	}
	if err := s.begin(); err != nil {
		s.abort(err)
		return nil, err
	}
	return s, nil
}

// begin is Start once the tools are built: the trace and session_start,
// the task table, the harness's bridge, retention, staging and the launch
// task.
func (s *Session) begin() error {
	if err := startFault(s.l.Opts.Getenv, s.recordsDir); err != nil {
		return err
	}
	if err := s.buildHooks(); err != nil {
		return err
	}
	tr, err := s.openTrace()
	if err != nil {
		return err
	}
	s.tr = tr
	reg, err := tasktable.New(tasktable.Config{Acceptance: tasktable.Mode(s.m.Lifecycle.TaskAcceptance), QueueDepth: s.m.Lifecycle.QueueDepth, Now: s.now, Notify: s.notify})
	if err == nil {
		err = faultAt(s.l.Opts.Getenv, "task_table")
	}
	if err != nil {
		return diag.RunTaskTable(err.Error()).WithErr(err)
	}
	s.reg = reg
	if s.m.Inference.Process() {
		if err := s.startHarness(); err != nil {
			return err
		}
	}
	if _, err := s.tr.Write(s.sessionStartRecord()); err != nil {
		return err
	}
	s.begun = true
	if s.hx != nil {
		s.probeHarness() // PROC-10: once, right after session_start
	}
	s.retain()
	s.retainRecords()
	s.setupTelemetry()
	if err := s.tools.Stage(s.runtimeDir); err != nil {
		s.bootstrap(fmt.Sprintf("staging failed: %v\n", err))
	}
	s.hooks.Observe(s.stopCtx, hook.OnSessionStart, map[string]any{"session_id": s.id, "capsule": s.m.Name, "capsule_version": s.m.Version})
	s.setupDeadline()
	if err := s.restoreWaiting(); err != nil {
		return err
	}
	s.reportLost()
	if s.l.HasTask {
		if err := os.WriteFile(filepath.Join(s.runtimeDir, "task.md"), []byte(s.l.TaskText), 0o600); err != nil {
			s.bootstrap(fmt.Sprintf("task.md could not be written: %v\n", err))
		}
		msg := a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(s.l.TaskText)},
			ContextID: a2a.ContextID(s.l.LaunchContextID)}
		prov := tasktable.Provenance{Origin: a2a.OriginUser, Trust: a2a.TrustTrusted, Source: "task_md"}
		t, err := s.reg.Submit(prov, msg)
		if err == nil {
			err = faultAt(s.l.Opts.Getenv, "launch_task")
		}
		if err != nil {
			return diag.RunLaunchTask(err.Error()).WithErr(err)
		}
		s.launchTask = string(t.ID)
	}
	return nil
}

// abort ends a session whose start failed after its tools were built:
// what it started is closed, the failure goes to logs/bootstrap.log, and
// the trace, where it can be written at all, is whole — session_start
// (written now when it was not) through session_end with exit_status
// failed (SES-3).
func (s *Session) abort(cause error) {
	s.bootstrap(fmt.Sprintf("the session could not start: %v\n", cause))
	s.closeHarness()
	if s.reg != nil {
		s.reg.Close(true)
	}
	if s.tr == nil {
		if tr, err := s.openTrace(); err == nil {
			s.tr = tr
		}
	}
	if s.tr != nil {
		if !s.begun {
			_, _ = s.tr.Write(s.sessionStartRecord())
		}
		s.closeRecords()
		_, _ = s.tr.Write(trace.SessionEnd{DurationMS: elapsedMS(s.start, s.now()), ExitStatus: StatusFailed})
		_ = s.tr.Close()
	}
	s.stopCancel()
	s.wg.Wait()
	s.hooks.Close() // no hook has had an event yet: nothing to drain
	for _, sb := range s.hookBoxes {
		sb.Close()
	}
	s.sandbox.Close()
	s.cgroup.Remove()
	if s.otel != nil {
		s.flushTelemetry()
	}
	s.l.closeMember()
}

// makeDirs creates the records and runtime directories, 0700 (SES-3).
func (s *Session) makeDirs() error {
	var err error
	if s.recordsDir, err = murhome.SessionDir(s.cfg.Home, s.workdir, s.id); err != nil {
		return diag.IOError(s.workdir, err.Error())
	}
	if s.runtimeDir, err = murhome.RuntimeDir(s.workdir, s.id); err != nil {
		return diag.IOError(s.workdir, err.Error())
	}
	s.logsDir = filepath.Join(s.recordsDir, "logs")
	for _, d := range []string{s.recordsDir, s.logsDir, filepath.Join(s.recordsDir, "out"),
		filepath.Join(s.recordsDir, "home"), filepath.Join(s.recordsDir, "tmp"), s.runtimeDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return diag.IOError(d, osText(err))
		}
	}
	return nil
}

// bootstrap appends a line to logs/bootstrap.log (SES-3): staging
// diagnostics, warnings, non-fatal failures, undeliverable output.
func (s *Session) bootstrap(text string) {
	s.bootMu.Lock()
	defer s.bootMu.Unlock()
	f, err := os.OpenFile(filepath.Join(s.logsDir, "bootstrap.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = io.WriteString(f, peerplane.Redact(text)) // a log never holds a peer-file handle (PFILE-6)
}

// Bootstrap appends text to logs/bootstrap.log; cmd/mur sends undeliverable
// stdout and stderr lines here (CLI-4).
func (s *Session) Bootstrap(text string) { s.bootstrap(text) }

// retain runs SES-9 retention right after session_start and writes one
// retention record per (store, reason) that removed anything.
func (s *Session) retain() {
	r := s.m.Trace.Retain
	if r == nil {
		return
	}
	removals, err := murhome.Retain(murhome.RetainConfig{Home: s.cfg.Home, Workdir: s.workdir, Current: s.id,
		MaxSessions: r.MaxSessions, MaxAge: r.MaxAge, Now: s.now()})
	if err != nil {
		s.bootstrap(fmt.Sprintf("retention: %v\n", err))
	}
	for _, rm := range removals {
		_, _ = s.tr.Write(trace.Retention{Store: rm.Store, Reason: rm.Reason, Removed: rm.Removed})
	}
}

// a2aTimeout is how long a lifecycle without a launch task waits for its first
// message (LOOP-3): MURMUR_A2A_TIMEOUT_SECS when a positive integer, else 30 s.
func (s *Session) a2aTimeout() time.Duration {
	if n, err := strconv.Atoi(s.l.Opts.Getenv("MURMUR_A2A_TIMEOUT_SECS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 30 * time.Second
}

// StartFaultEnv names the test builds' start fault (MURMUR_TEST_START_FAULT):
// read only by a mur built with the murtest tag.
const StartFaultEnv = "MURMUR_TEST_START_FAULT"

// openTrace opens the session's trace, whose records never hold a peer-file
// handle: each is written as <handle:<handle_id>> (tools.md PFILE-6).
func (s *Session) openTrace() (*trace.Writer, error) {
	tr, err := trace.Open(filepath.Join(s.recordsDir, murhome.TraceFile), s.id, s.now)
	if err != nil {
		return nil, err
	}
	tr.Redact(peerplane.RedactBytes)
	return tr, nil
}
