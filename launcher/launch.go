package launcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/supervisor"
	"github.com/murmur-go/mur/runtime/wire"
)

// Config is one `mur run --roster` launch. cmd/mur fills it from flags and
// the process; the launcher reads no flag or environment variable itself.
type Config struct {
	RosterPath string          // absolute path of roster.yaml (roster.Locate)
	Resolver   roster.Resolver // the project's stores and murmur.lock
	Home       string          // $MURMUR_HOME
	Self       string          // the mur executable each member runs (os.Executable)
	Cwd        string          // every member's current directory (LAUNCH-3)
	Environ    []string        // the launcher's environment (LAUNCH-3)

	Task      *string           // --task, or nil for door mode (LAUNCH-7)
	Resume    map[string]string // member name → its old session's trace.jsonl (--resume <frm_id>)
	JSON      bool              // --json (entry; FCLI-1)
	Verbose   bool              // --verbose (entry)
	NoEnvFile bool              // --no-env-file (every member)
	Deadline  time.Time         // --deadline as an absolute moment, or zero (LAUNCH-8)
	// MaxConnections is --max-connections, handed to every member's mur run;
	// 0 leaves each door's default.
	MaxConnections int
	// Strict is --strict: a launch with warnings is refused (E-RUN-048)
	// before any member starts, as the roster's strict: true does.
	Strict bool

	// The launcher's streams; the entry member shares them (LAUNCH-1 step 9).
	// *os.File values are handed to the entry as they are.
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	// Signals delivers SIGINT, SIGTERM and SIGHUP (LIFE-2); the end of Run's
	// context counts as SIGTERM.
	Signals <-chan os.Signal
	// ProcessStart returns a process's start time as running records hold it
	// (capsule.md SES-6); "" when unreadable.
	ProcessStart func(pid int) string
	// Alive reports whether pid is still the process that started at start.
	Alive func(pid int, start string) bool
	// RunningFormations returns the formation ids some running record names
	// with its process alive; an error counts every formation as running (RET-3).
	RunningFormations func() (map[string]bool, error)
	// Kube, when set, runs the formation on a Kubernetes cluster instead of
	// as local processes (docs/kubernetes.md).
	Kube *KubeTarget

	// EndAdopted ends what a member that ended left behind, adopted by the
	// launcher as a subreaper (a killed peer's tool process); it runs after
	// each member is reaped. Nil: nothing.
	EndAdopted func()
}

// TeardownGrace is how long a closed lifeline gets before the launcher
// SIGKILLs the member's process group (LIFE-4).
const TeardownGrace = 25 * time.Second

// launch is one run of the launcher.
type launch struct {
	cfg          Config
	f            *roster.Formation
	creds        *credentials
	stderr       *syncWriter
	pid          int
	procStart    string
	readyTimeout time.Duration
	grace        time.Duration
	procs        []*proc // every member started, peers in roster order, then the entry
	wg           sync.WaitGroup
	adopt        chan struct{} // a member was reaped: EndAdopted is due (coalesced)
}

// adopted asks for one EndAdopted pass: members reaped together share it,
// so hundreds ending at once do not each scan /proc.
func (l *launch) adopted() {
	select {
	case l.adopt <- struct{}{}:
	default:
	}
}

// endAdopted runs EndAdopted for each request until the launch has reaped
// every member (stopAdopting).
func (l *launch) endAdopted() {
	for range l.adopt {
		if l.cfg.EndAdopted != nil {
			l.cfg.EndAdopted()
		}
	}
}

// Run launches the roster and returns the launcher's exit code (FCLI-4). It
// prints every diagnostic and line itself, and returns only once every
// member it started has been reaped.
func Run(ctx context.Context, cfg Config) int {
	return newLaunch(cfg).run(ctx)
}

func newLaunch(cfg Config) *launch {
	if cfg.ProcessStart == nil {
		cfg.ProcessStart = func(int) string { return "" }
	}
	return &launch{cfg: cfg, stderr: &syncWriter{w: cfg.Stderr}, pid: os.Getpid(), adopt: make(chan struct{}, 1),
		readyTimeout: ReadyTimeout, grace: TeardownGrace}
}

func (l *launch) run(ctx context.Context) int {
	f, warns, creds, sig, err := l.admit(ctx) // LAUNCH-1 steps 2, 3
	if sig != nil {
		return l.interrupted(sig)
	}
	if err != nil {
		return l.fail(err)
	}
	// The members' own manifests are read too, and what would
	// break the run without failing it is said before anything starts.
	warns = append(warns, MemberWarnings(f, l.getenv, l.cfg.Cwd, l.cfg.NoEnvFile)...)
	for _, w := range warns {
		l.stderr.line("[mur run] ", strings.TrimSuffix(w.Render(), "\n"))
	}
	if len(warns) > 0 && (l.cfg.Strict || f.Roster.Strict) {
		creds.drop()
		setBy := "--strict"
		if !l.cfg.Strict {
			setBy = "roster.yaml's strict: true"
		}
		return l.fail(diag.RunStrict(len(warns), setBy))
	}
	l.f, l.creds = f, creds
	defer l.creds.drop()
	if sig := l.signaled(); sig != nil { // one that came while the warnings were read
		return l.interrupted(sig)
	}
	if l.cfg.Kube != nil {
		return l.kubeLaunch(ctx)
	}
	l.procStart = l.cfg.ProcessStart(l.pid)
	closeInheritedOnExec()
	l.wg.Go(l.endAdopted)
	code := l.launch(ctx)
	close(l.adopt) // every member is reaped: none asks again
	l.wg.Wait()
	if len(l.procs) > 0 {
		l.retention() // RET-2: every started member is reaped
	}
	// A formation that ran with warnings says last that its answer came
	// despite them, so it never passes for a clean run.
	if code == 0 && len(warns) > 0 {
		codes := make([]diag.Code, len(warns))
		for i, w := range warns {
			codes[i] = w.Code
		}
		what := "the formation's answer"
		if l.cfg.Task == nil {
			what = "the formation's answers"
		}
		l.stderr.line("[mur run] ", strings.TrimSuffix(diag.RunDespite(what, codes).Render(), "\n"))
	}
	return code
}

// admit runs admission and mints the formation's credentials (LAUNCH-1
// steps 2 and 3) on a goroutine it waits for, so that a signal meanwhile ends
// the launch at once: sig is then the signal, the work is cancelled, and
// nothing has been started or written (ADM-1 writes nothing).
func (l *launch) admit(ctx context.Context) (f *roster.Formation, warns []*diag.Diagnostic, creds *credentials, sig os.Signal, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if f, warns, err = roster.AdmitContext(actx, l.cfg.RosterPath, l.cfg.Resolver); err == nil {
			creds, err = mint(actx, f)
		}
	}()
	sig = l.untilSignal(ctx, done)
	if sig == nil {
		select { // one that came as admission ended still comes before any start
		case sig = <-l.cfg.Signals:
		default:
			return f, warns, creds, nil, err
		}
	}
	cancel(errInterrupted)
	<-done
	if creds != nil {
		creds.drop()
	}
	return nil, nil, nil, sig, nil
}

// errInterrupted is the cause admission is cancelled with on a signal.
var errInterrupted = errors.New("the launch was interrupted")

// fail prints err as its diagnostic and returns 1.
func (l *launch) fail(err error) int {
	if d, ok := diag.As(err); ok {
		l.stderr.write([]byte(d.Render()))
	} else {
		l.stderr.line("error: ", err.Error())
	}
	return 1
}

// launch runs steps 4–10 and returns the exit code.
func (l *launch) launch(ctx context.Context) int {
	peers := l.f.Peers()
	var dirFails []diag.LaunchFailure
	peerDirs := make([]string, len(peers))
	if len(peers) > 0 { // step 4
		dir, fault, err := l.makeFormationDir()
		if err != nil {
			return l.refuse([]diag.LaunchFailure{l.launchFailure(peers[0], &failure{reason: fmt.Sprintf(
				"its process could not be started: its directory %s could not be made: %s", murhome.FormationDir(l.cfg.Home, l.creds.formationID), osText(err))})})
		}
		if fault != "" {
			l.stderr.line("[mur run] ", fmt.Sprintf("warning: formation %s has no ownership marker (%s); its directory will never be removed automatically", l.creds.formationID, fault))
		}
		for i, p := range peers {
			peerDirs[i] = filepath.Join(dir, p.Name)
			if fl := makePeerDir(peerDirs[i]); fl != nil {
				dirFails = append(dirFails, l.launchFailure(p, fl))
			}
		}
	}
	if len(dirFails) > 0 {
		return l.refuse(dirFails)
	}
	pending := make([]*proc, 0, len(l.f.Members)) // every pipe before the first spawn
	for i, m := range peers {
		p, err := l.newProc(m, false, peerDirs[i])
		if err != nil {
			return l.abandon(pending, err)
		}
		pending = append(pending, p)
	}
	entry, err := l.newProc(l.f.Entry(), true, l.f.Roster.Dir)
	if err != nil {
		return l.abandon(pending, err)
	}
	pending = append(pending, entry)
	if sig := l.signaled(); sig != nil { // the last moment before a member starts
		for _, p := range pending {
			p.closeAll()
		}
		return l.interrupted(sig)
	}
	ready, code, ok := l.startPeers(ctx, pending[:len(peers)], entry) // steps 5, 6
	if !ok {
		return code
	}
	for _, p := range pending[:len(peers)] { // step 7
		if len(p.m.Callees) > 0 {
			p.send(addressLine(l.addresses(p.m.Callees, ready)))
		}
		p.finishLines()
	}
	l.printFormation(pending[:len(peers)], ready) // step 8
	if len(entry.m.Callees) > 0 {
		entry.send(addressLine(l.addresses(entry.m.Callees, ready)))
	}
	entry.finishLines()
	if err := l.start(entry); err != nil { // step 9
		entry.closeAll()
		fl := l.launchFailure(entry.m, &failure{reason: "its process could not be started: " + err.Error()})
		stopped := l.stoppedList()
		l.teardown(l.procs)
		l.stderr.write([]byte(diag.RunLaunchFailed([]diag.LaunchFailure{fl}, stopped).Render()))
		return 1
	}
	l.procs = append(l.procs, entry)
	return l.wait(ctx, entry) // step 10
}

// startConcurrency bounds how many peers are being forked and exec'd at
// once: enough to keep every core busy with a member's exec while another
// is forked, few enough that a large formation does not hold hundreds of
// threads blocked in vfork.
const startConcurrency = 8

// startPeers starts every peer, startConcurrency at a time, and waits for
// each to be ready (READY-*). ok is false when the launch ended; code is then
// its exit code. A signal or a peer that cannot be started stops further
// starts; the peers already started are kept in l.procs in roster order, so
// what is printed about them does not depend on which start finished first.
func (l *launch) startPeers(ctx context.Context, peers []*proc, entry *proc) (ready map[string]*wire.Ready, code int, ok bool) {
	fails := make([]*failure, len(peers))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var sig os.Signal
	started := make([]bool, len(peers))
	var startFailed atomic.Bool
	sem := make(chan struct{}, startConcurrency)
	var starts sync.WaitGroup
	dispatched := 0
	for i, p := range peers {
		if sig = l.signaled(); sig != nil { // starting hundreds takes a while: a signal stops it
			break
		}
		sem <- struct{}{}
		if startFailed.Load() {
			<-sem
			break
		}
		dispatched = i + 1
		starts.Go(func() {
			defer func() { <-sem }()
			if err := l.start(p); err != nil {
				fails[i] = &failure{reason: "its process could not be started: " + err.Error()}
				p.closeAll()
				startFailed.Store(true)
				return
			}
			started[i] = true
		})
	}
	starts.Wait()
	for _, q := range peers[dispatched:] {
		q.closeAll()
	}
	if sig != nil || startFailed.Load() {
		cancel() // the others need not come up
	}
	for i, p := range peers {
		if started[i] {
			l.procs = append(l.procs, p)
		}
	}
	ready = make(map[string]*wire.Ready, len(peers))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, p := range peers {
		if !started[i] {
			continue
		}
		wg.Go(func() {
			r, fl := l.awaitReady(wctx, p)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case fl != nil:
				fails[i] = fl
				cancel() // one failing peer refuses the launch (READY-4)
			case r != nil:
				ready[p.m.Name] = r
			}
		})
	}
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()
	if sig == nil {
		sig = l.untilSignal(ctx, allDone)
	}
	cancel()
	<-allDone
	var failed []*roster.Admitted
	var reasons []*failure
	for i, fl := range fails {
		if fl != nil {
			failed, reasons = append(failed, peers[i].m), append(reasons, fl)
		}
	}
	if sig == nil && len(failed) == 0 {
		return ready, 0, true
	}
	stopped := l.stoppedList()
	entry.closeAll()
	if sig != nil {
		// A signal is answered at once: a peer not yet ready has served
		// nothing and is killed now; the ready ones get LIFE-4's wind-down.
		for _, p := range l.procs {
			if ready[p.m.Name] == nil && p.running() {
				p.kill()
			}
		}
	}
	l.teardown(l.procs) // READY-5: stop and reap before printing
	if sig != nil {
		l.stderr.line("[mur run] ", fmt.Sprintf("the formation launch was interrupted by %s before every member was ready", signalName(sig)))
		l.stderr.line("[mur run] ", "stopped: "+strings.Join(orNone(stopped), ", "))
		return nil, 128 + int(sig.(syscall.Signal)), false
	}
	lfs := make([]diag.LaunchFailure, len(failed))
	for i, m := range failed {
		lfs[i] = l.launchFailure(m, reasons[i])
	}
	l.stderr.write([]byte(diag.RunLaunchFailed(lfs, stopped).Render()))
	return nil, 1, false
}

// signaled returns a launcher signal that is waiting, or nil; the end of
// ctx is not checked here (untilSignal sees it).
func (l *launch) signaled() os.Signal {
	select {
	case s := <-l.cfg.Signals:
		return s
	default:
		return nil
	}
}

// interrupted reports a signal that came before any member started and
// returns its exit code (READY-5's 130/143/129).
func (l *launch) interrupted(sig os.Signal) int {
	l.stderr.line("[mur run] ", fmt.Sprintf("the formation launch was interrupted by %s before any member started", signalName(sig)))
	return 128 + int(sig.(syscall.Signal))
}

// untilSignal waits for done or a launcher signal; it returns the signal,
// or nil when done closed first. The end of ctx counts as SIGTERM.
func (l *launch) untilSignal(ctx context.Context, done <-chan struct{}) os.Signal {
	select {
	case <-done:
		return nil
	case s := <-l.cfg.Signals:
		return s
	case <-ctx.Done():
		return syscall.SIGTERM
	}
}

// wait is step 10: the entry's exit or a launcher signal ends the formation.
func (l *launch) wait(ctx context.Context, entry *proc) int {
	sig := l.untilSignal(ctx, entry.exited)
	if sig == nil {
		l.teardown(l.procs) // LIFE-2: the entry ended; close every peer's lifeline
		return entry.exitCode()
	}
	l.teardown(l.procs) // LIFE-2: a signal closes every lifeline, the entry's too
	return 128 + int(sig.(syscall.Signal))
}

// refuse prints E-RUN-045 for a launch that started nothing.
func (l *launch) refuse(fails []diag.LaunchFailure) int {
	l.stderr.write([]byte(diag.RunLaunchFailed(fails, nil).Render()))
	return 1
}

// abandon closes the pipes made so far and reports err.
func (l *launch) abandon(ps []*proc, err error) int {
	for _, p := range ps {
		p.closeAll()
	}
	return l.fail(fmt.Errorf("the formation could not be launched: %w", err))
}

func (l *launch) launchFailure(m *roster.Admitted, fl *failure) diag.LaunchFailure {
	lf := diag.LaunchFailure{Name: m.Name, Capsule: m.Capsule, Version: m.Version, Reason: fl.reason}
	if fl.withTail {
		for _, p := range l.procs {
			if p.m == m {
				<-p.errDone
				lf.Tail = p.stderrTail.get()
			}
		}
	}
	return lf
}

// stoppedList is E-RUN-045's "<name> (pid N)" for every member started.
func (l *launch) stoppedList() []string {
	var s []string
	for _, p := range l.procs {
		s = append(s, fmt.Sprintf("%s (pid %d)", p.m.Name, p.pid))
	}
	return s
}

func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{"none"}
	}
	return s
}

// addresses lists callees' doors in roster order (CHAN-3).
func (l *launch) addresses(callees []string, ready map[string]*wire.Ready) []wire.Address {
	var out []wire.Address
	for _, c := range callees {
		if r, ok := ready[c]; ok {
			out = append(out, wire.Address{Name: c, URL: r.URL, SessionID: r.SessionID})
		}
	}
	return out
}

// signalName is READY-5's name of a launcher signal.
func signalName(s os.Signal) string {
	if sig, ok := s.(syscall.Signal); ok && (sig == syscall.SIGINT || sig == syscall.SIGHUP) {
		return supervisor.SignalName(sig)
	}
	return "SIGTERM"
}

// getenv reads the launcher's environment (Config.Environ), the one every
// member inherits (LAUNCH-3).
func (l *launch) getenv(name string) string {
	for i := len(l.cfg.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(l.cfg.Environ[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
