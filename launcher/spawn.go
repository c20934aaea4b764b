package launcher

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/supervisor"
	"github.com/murmur-go/mur/runtime/wire"
)

// proc is one member process the launcher started.
type proc struct {
	m     *roster.Admitted
	entry bool
	dir   string // its working directory (DIR-1)

	chW, lifeW     *os.File    // write ends: the launcher's alone (CHAN-1, LIFE-1)
	lines          chan []byte // the channel's lines in order, for its writer (CHAN-2, CHAN-3)
	linesDone      sync.Once
	chR, lifeR     *os.File         // read ends: handed over as fds 3 and 4, closed after Start
	outR, errR     *os.File         // a peer's stdout and stderr, read by the launcher
	sup            *supervisor.Proc // a peer leads its own group; the entry shares the launcher's (LIFE-5, LIFE-6)
	pid            int
	spawned        time.Time
	lifelineClosed sync.Once

	firstLine  chan string   // a peer's first stdout line; closed unread at EOF
	outDone    chan struct{} // the stdout reader is done
	errDone    chan struct{} // the stderr reader is done
	exited     chan struct{} // closed once the member is reaped
	stderrTail tail
}

// args is the member's command line (LAUNCH-2, LAUNCH-6, LAUNCH-7, LAUNCH-8).
func (l *launch) args(p *proc) []string {
	return append([]string{l.cfg.Self}, l.runArgs(p.m, p.entry, l.f.Roster.Dir, p.dir, nil)...)
}

// runArgs is a member's mur run arguments after the executable; door, when
// not nil, is where every member's door binds (a pod's: all addresses, one
// port), else a peer's binds 127.0.0.1 on any port and the entry's as its
// manifest says.
func (l *launch) runArgs(m *roster.Admitted, entry bool, storeRoot, dir string, door []string) []string {
	a := []string{"run", "--capsule", m.Capsule, "--capsule-version", m.Version,
		"--capsule-sha256", m.SHA256, "--store-root", storeRoot, "--workdir", dir}
	if !l.cfg.Deadline.IsZero() {
		a = append(a, "--inherited-deadline", strconv.FormatInt(l.cfg.Deadline.UnixMilli(), 10))
	}
	if l.cfg.NoEnvFile {
		a = append(a, "--no-env-file")
	}
	if l.cfg.MaxConnections > 0 {
		a = append(a, "--max-connections", strconv.Itoa(l.cfg.MaxConnections))
	}
	if door == nil && !entry {
		door = []string{"--bind", "127.0.0.1"}
	}
	a = append(a, door...)
	if trace := l.cfg.Resume[m.Name]; trace != "" {
		a = append(a, "--resume", trace)
	}
	if !entry {
		return append(a, "--json")
	}
	if l.cfg.JSON {
		a = append(a, "--json")
	}
	if l.cfg.Verbose {
		a = append(a, "--verbose")
	}
	if l.cfg.Task != nil {
		return append(a, "--lifecycle-task-acceptance", "single", "--lifecycle-after-task", "exit", "--task", *l.cfg.Task)
	}
	return append(a, "--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
}

// memberEnv is the launcher's environment with the formation variables set
// and any inherited formation or delegation variable removed (LAUNCH-3).
func (l *launch) memberEnv() []string {
	var env []string
	for _, kv := range l.cfg.Environ {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MURMUR_FORMATION_") || strings.HasPrefix(k, "MURMUR_SPAWNER") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "MURMUR_FORMATION_ID="+l.creds.formationID,
		"MURMUR_FORMATION_CHANNEL=3", "MURMUR_FORMATION_LIFELINE=4")
}

// newProc makes p's channel and lifeline pipes (close-on-exec) and queues
// the channel's first line (CHAN-2) for p's writer. A credentials line can
// be larger than a pipe holds (a token per callee), so no line is written
// on the launcher's own path: the writer, a goroutine of l.wg, blocks until
// the member reads, and ends at a write error or once the lines are
// finished (finishLines, closeAll).
func (l *launch) newProc(m *roster.Admitted, entry bool, dir string) (*proc, error) {
	p := &proc{m: m, entry: entry, dir: dir, firstLine: make(chan string, 1), lines: make(chan []byte, 2),
		outDone: make(chan struct{}), errDone: make(chan struct{}), exited: make(chan struct{})}
	var err error
	if p.chR, p.chW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("channel pipe: %w", err)
	}
	if p.lifeR, p.lifeW, err = os.Pipe(); err != nil {
		p.chR.Close()
		p.chW.Close()
		return nil, fmt.Errorf("lifeline pipe: %w", err)
	}
	p.lines <- l.creds.firstLine(m, l.f.Roster.Cancel, l.pid, l.procStart)
	l.wg.Go(p.writeLines)
	return p, nil
}

// writeLines writes p's channel lines in order; after a failed write it
// only drains what is queued.
func (p *proc) writeLines() {
	failed := false
	for b := range p.lines {
		if !failed {
			_, err := p.chW.Write(b)
			failed = err != nil
		}
	}
}

// send queues a line after the first (CHAN-3's address line).
func (p *proc) send(b []byte) { p.lines <- b }

// finishLines says no line follows: the writer ends once it wrote what is
// queued.
func (p *proc) finishLines() { p.linesDone.Do(func() { close(p.lines) }) }

// start execs the member. A peer leads its own process group and its output
// comes to the launcher; the entry shares the launcher's streams and group
// (LIFE-5, LIFE-6). The launcher's copies of the read ends are closed after
// Start, so only the member holds them (LAUNCH-3).
func (l *launch) start(p *proc) error {
	cmd := &exec.Cmd{Path: l.cfg.Self, Args: l.args(p), Env: l.memberEnv(), Dir: l.cfg.Cwd,
		ExtraFiles: []*os.File{p.chR, p.lifeR}}
	var outW, errW *os.File
	if p.entry {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = l.cfg.Stdin, l.cfg.Stdout, l.cfg.Stderr
	} else {
		var err error
		if p.outR, outW, err = os.Pipe(); err != nil {
			return err
		}
		if p.errR, errW, err = os.Pipe(); err != nil {
			p.outR.Close()
			outW.Close()
			return err
		}
		cmd.Stdout, cmd.Stderr = outW, errW
	}
	p.spawned = time.Now()
	// No parent-death signal: a member winds down from its lifeline's EOF
	// (LIFE-3); the launcher never sends SIGTERM, only SIGKILL after the
	// teardown's grace.
	sup, err := supervisor.Start(cmd, supervisor.Options{InParentGroup: p.entry})
	p.chR.Close()
	p.lifeR.Close()
	if outW != nil {
		outW.Close()
		errW.Close()
	}
	if err != nil {
		if p.outR != nil {
			p.outR.Close()
			p.errR.Close()
		}
		close(p.outDone)
		close(p.errDone)
		close(p.exited)
		return err
	}
	p.sup, p.pid = sup, sup.Pid()
	l.wg.Go(func() {
		<-sup.Done()
		l.adopted() // a member's descendants end with it, not with the formation
		close(p.exited)
	})
	if p.entry {
		close(p.outDone)
		close(p.errDone)
		return nil
	}
	prefix := "[" + p.m.Name + "] "
	l.wg.Go(func() {
		defer close(p.outDone)
		first := true
		eachLine(p.outR, func(s string) {
			if first {
				first = false
				p.firstLine <- s
				return
			}
			l.stderr.line(prefix, s)
		})
		if first {
			close(p.firstLine)
		}
	})
	l.wg.Go(func() {
		defer close(p.errDone)
		eachLine(p.errR, func(s string) {
			p.stderrTail.add(s)
			l.stderr.line(prefix, s)
		})
	})
	return nil
}

// endLifeline announces an orderly end on the lifeline (wire.OrderlyEnd, so
// that the member winds down without the alarm line a dead launcher's EOF
// gets), then closes it
// (LIFE-2). The member may be gone already: the write's error is dropped.
func (p *proc) endLifeline() {
	p.lifelineClosed.Do(func() {
		_, _ = p.lifeW.Write([]byte(wire.OrderlyEnd))
		p.lifeW.Close()
	})
}

// closeLifeline closes the launcher's write end: EOF for the member (LIFE-2).
func (p *proc) closeLifeline() {
	p.lifelineClosed.Do(func() { p.lifeW.Close() })
}

// closeAll closes every descriptor the launcher holds for p.
func (p *proc) closeAll() {
	p.finishLines()
	p.closeLifeline()
	for _, f := range []*os.File{p.chR, p.chW, p.lifeR, p.outR, p.errR} {
		if f != nil {
			f.Close()
		}
	}
}

// exitText is how READY-4 names an exit: "status N" or "signal N".
func (p *proc) exitText() string {
	e := p.exit()
	if !e.Finished() {
		return "status unknown"
	}
	if e.Signal != 0 {
		return fmt.Sprintf("signal %d", int(e.Signal))
	}
	return fmt.Sprintf("status %d", e.Code)
}

// exitCode is the member's exit code, or 128 + its signal (FCLI-4).
func (p *proc) exitCode() int {
	e := p.exit()
	if !e.Finished() {
		return 1
	}
	return e.ShellCode()
}

// exit is how the member ended; Unfinished before it is reaped or when it
// never started.
func (p *proc) exit() supervisor.Exit {
	if p.sup == nil {
		return supervisor.Unfinished
	}
	return p.sup.Exit()
}

// running reports whether p has not been reaped yet.
func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// closeInheritedOnExec marks every descriptor above stderr close-on-exec, so
// members inherit nothing the launcher itself inherited: a member holds its
// stdio and its own two read ends only (LAUNCH-3). Go opens its own
// descriptors close-on-exec already. openFDDir lists this process's open
// descriptors: /proc/self/fd on Linux, /dev/fd elsewhere.
func closeInheritedOnExec() {
	ents, err := os.ReadDir(openFDDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
