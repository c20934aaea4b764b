package spawn

import (
	"crypto/subtle"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/supervisor"
	"github.com/murmur-go/mur/runtime/wire"
)

// Child is one delegated sub-capsule (DLG-3..7), from its launch until it
// is reaped. Its exported fields are set before Delegate returns and never
// change; its methods are safe for concurrent use.
type Child struct {
	ID               string // the delegation id, dlg_…
	Capsule, Version string
	SessionID        string // the child's session (its readiness line)
	Workdir          string // its accessible workdir, absolute
	RelWorkdir       string // Workdir relative to the parent's workdir (DLG-4 child_workdir)
	URL              string // its door (never shown to the model)
	RecordsDir       string // its records directory (completion.json)
	TaskID           string // the task its door holds
	Ready            time.Time

	hub             *Hub
	proc            *supervisor.Proc // SIGTERM once (a second makes mur exit at once, SES-8), the group's SIGKILL Timing.Exit later
	life            *os.File         // the lifeline's write end: only this process holds it (DLG-6)
	stdout          *os.File
	log             *childLog
	cl              *client.Client
	completionToken string
	doorToken       string
	started         time.Time
	ready           chan wire.Ready // buffered 1: the readiness line
	exited          chan struct{}   // closed once the process is reaped
	done            chan struct{}   // closed once the outcome is settled

	mu       sync.Mutex
	ses, rec string // SessionID and RecordsDir for the goroutines that may run before Delegate returns
	held     bool   // Delegate handed the child to its caller: Terminate settles it from then on
	outcome  Outcome
	settled  bool
}

// Outcome is how a delegation ended (DLG-7, DLG-8).
type Outcome struct {
	// Status is ok, error (the child's own report), crashed (its process
	// ended without a completion), terminated (the parent ended it) or
	// unknown (its completion could not be read).
	Status string
	// Completion is the record: as posted, as read from completion.json, or
	// as the parent built it (reported_by launcher).
	Completion wire.Completion
	// Reason says why the parent reported it so; "" for a child's own report.
	Reason string
	At     time.Time
}

// Client is a client of the child's door, carrying the parent's door token
// (a plan step polls its task through it, PLAN-6).
func (c *Child) Client() *client.Client { return c.cl }

// Done is closed once the outcome is settled: a completion arrived, the
// process ended, or Terminate was called.
func (c *Child) Done() <-chan struct{} { return c.done }

// Exited is closed once the child's process has been reaped.
func (c *Child) Exited() <-chan struct{} { return c.exited }

// Outcome returns the settled outcome; the zero Outcome before Done.
func (c *Child) Outcome() Outcome {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.outcome
}

// settle fixes the outcome once; later calls do nothing (DLG-7: nothing is
// reported twice). It reports whether this call settled it.
func (c *Child) settle(o Outcome) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settled {
		return false
	}
	o.At = time.Now()
	if o.Completion.SessionID == "" {
		o.Completion.SessionID = c.ses
	}
	c.outcome, c.settled = o, true
	close(c.done)
	return true
}

// completed takes a posted completion (DLG-7): the child's report, or
// unknown when it cannot be read; then the child has Timing.Exit to exit.
func (c *Child) completed(text string) {
	comp, ok := wire.ParseCompletion([]byte(text))
	o := Outcome{Status: comp.Status, Completion: comp}
	if !ok || comp.DelegationID != c.ID {
		const why = "its completion could not be read"
		o = Outcome{Status: wire.StatusUnknown, Completion: c.record(wire.StatusUnknown, why), Reason: why}
	}
	c.settle(o)
	c.armKill()
}

// known is the child's session and records directory once its readiness
// line arrived ("" before), for the goroutines that may run meanwhile.
func (c *Child) known() (session, recordsDir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ses, c.rec
}

// ready records the readiness line's session and records directory.
func (c *Child) readyAt(rl wire.Ready) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ses, c.rec = rl.SessionID, rl.RecordsDir
}

// hand marks the child handed to Delegate's caller.
func (c *Child) hand() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = true
}

// isHeld reports whether Delegate handed the child out.
func (c *Child) isHeld() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held
}

// Terminate ends the delegation now (DLG-5's deadline, the delegating task
// ending, the session ending): unless an outcome already arrived it is
// terminated, with reason; the child gets SIGTERM and, Timing.Exit later,
// SIGKILL to its group. It returns at once; Exited tells when it is gone.
func (c *Child) Terminate(reason string) {
	c.settle(Outcome{Status: wire.StatusTerminated, Completion: c.record(wire.StatusTerminated, reason), Reason: reason})
	c.terminate()
}

// stopAndReap stops a child that never held its task and waits until it is
// reaped (DLG-4: "the child stopped and reaped").
func (c *Child) stopAndReap() {
	c.settle(Outcome{Status: wire.StatusTerminated, Reason: "it never held its task"})
	c.terminate()
	<-c.exited
}

// terminate sends the child SIGTERM once — it winds down as on a first
// signal (capsule.md SES-8) — and arms the SIGKILL.
func (c *Child) terminate() {
	if c.proc != nil {
		c.proc.Stop()
	}
}

// armKill SIGKILLs the child's process group Timing.Exit from now, unless it
// is reaped first (DLG-5: 5 s to exit after the outcome).
func (c *Child) armKill() {
	if c.proc != nil {
		c.proc.KillAfter(c.hub.cfg.Timing.Exit)
	}
}

// wait reaps the child, closes the parent's lifeline end, and settles an
// outcome the child never reported: its completion.json if it wrote one
// (its post failed), else crashed (DLG-7).
func (c *Child) wait() {
	<-c.proc.Done()
	c.stdout.Close() // ends readStdout, even with a grandchild holding the pipe
	c.life.Close()
	c.log.close()
	ses, recDir := c.known()
	if recDir != "" {
		if comp, exists, ok := ReadCompletion(recDir); ok && comp.DelegationID == c.ID {
			c.settle(Outcome{Status: comp.Status, Completion: comp})
		} else if exists {
			const why = "its completion.json could not be read"
			c.settle(Outcome{Status: wire.StatusUnknown, Completion: c.record(wire.StatusUnknown, why), Reason: why})
		}
	}
	reason := "its process ended without a completion: " + c.exitText()
	if c.settle(Outcome{Status: wire.StatusCrashed, Completion: c.record(wire.StatusCrashed, reason), Reason: reason}) {
		c.writeRecord(true)
	} else if o := c.Outcome(); o.Status == wire.StatusTerminated && ses != "" {
		c.writeRecord(false)
	}
	h := c.hub
	h.mu.Lock()
	delete(h.children, c.ID)
	h.slots--
	h.mu.Unlock()
	close(c.exited)
}

// record is a completion the parent builds itself (reported_by launcher):
// for a crashed or terminated child, detail holds the exit status and its
// last stderr lines (DLG-7).
func (c *Child) record(status, reason string) wire.Completion {
	ses, _ := c.known()
	comp := wire.Completion{DelegationID: c.ID, CapsuleName: c.Capsule, CapsuleVersion: c.Version, SessionID: ses,
		Status: status, Workdir: c.Workdir, DurationMS: time.Since(c.started).Milliseconds(), ReportedBy: wire.ReportedByLauncher}
	if p := resultPath(c.Workdir, ses); p != "" {
		comp.ResultPath = p
	}
	detail := reason
	if tail := c.log.tail(); tail != "" {
		detail += "; its last stderr lines:\n" + tail
	}
	comp.Detail = cutDetail(detail)
	return comp
}

// writeRecord writes the parent's own record to the child's records
// directory once it is reaped (crashed: delivered, to this parent;
// terminated: posted to nobody).
func (c *Child) writeRecord(delivered bool) {
	_, recDir := c.known()
	if recDir == "" {
		return
	}
	o := c.Outcome()
	comp := o.Completion
	comp.DurationMS = time.Since(c.started).Milliseconds()
	comp.Delivered = delivered
	_ = writeCompletion(recDir, comp)
}

// exitText names how the process ended: "exit code N" or "killed by SIGKILL".
func (c *Child) exitText() string {
	e := c.proc.Exit()
	if !e.Finished() {
		return "it is still running"
	}
	if e.Signal != 0 {
		return "killed by " + supervisor.SignalName(e.Signal)
	}
	return fmt.Sprintf("exit code %d", e.Code)
}

// ResultFile is the child's copy of its last result in its runtime
// directory, <workdir>/.murmur/<ses_id>/result.txt: inside the
// parent's workdir, so the parent reads it with an ordinary tool call
// (DLG-8).
const ResultFile = "result.txt"

// ResultPath is where a delegated child's result copy lives, relative to its
// workdir.
func ResultPath(sessionID string) string { return filepath.Join(".murmur", sessionID, ResultFile) }

// resultPath is ResultPath when the file exists, else "".
func resultPath(workdir, sessionID string) string {
	if sessionID == "" {
		return ""
	}
	p := ResultPath(sessionID)
	if fi, err := os.Stat(filepath.Join(workdir, p)); err == nil && fi.Mode().IsRegular() {
		return p
	}
	return ""
}

// childLog keeps the tail of a child's stderr, and the whole of it in
// <logs>/<delegation_id>.log when the parent has a logs directory.
type childLog struct {
	mu   sync.Mutex
	f    *os.File
	last []byte
}

// tailBytes is how much stderr is kept for a completion's detail.
const tailBytes = 1500

func newChildLog(dir, id string) *childLog {
	l := &childLog{}
	if dir != "" {
		l.f, _ = os.OpenFile(filepath.Join(dir, id+".log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	}
	return l
}

func (l *childLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		_, _ = l.f.Write(p)
	}
	l.last = append(l.last, p...)
	if n := len(l.last); n > 2*tailBytes {
		l.last = append([]byte(nil), l.last[n-tailBytes:]...)
	}
	return len(p), nil
}

// tail is the last lines of stderr, at most tailBytes, whole lines.
func (l *childLog) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.last
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
		if i := strings.IndexByte(string(b), '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimRight(string(b), "\n")
}

func (l *childLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// equalToken compares two tokens in constant time.
func equalToken(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
