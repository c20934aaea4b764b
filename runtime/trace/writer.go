package trace

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/diag"
)

// File is what a Writer writes to: *os.File satisfies it.
type File interface {
	Write(p []byte) (int, error)
	Sync() error
	Close() error
}

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("trace writer closed")

// Writer appends records to one session's trace.jsonl. It is safe for
// concurrent use; each line is one Write call under its mutex (TRACE-1).
type Writer struct {
	path    string
	session string
	now     func() time.Time

	mu      sync.Mutex
	f       File
	size    int64 // bytes of whole lines in the file: a short write is cut back to it
	sized   bool  // size is known (the file has Stat)
	closed  bool
	err     error               // sticky: the E-RUN-007 diagnostic of the first failed write
	failed  chan struct{}       // closed when err is set
	sesNode string              // session_start's event id
	tasks   map[string]string   // task_id → task_start's event id
	turns   map[string]string   // task_id → the latest agent inference's event id
	observe func(Record)        // set once before use (Observe); nil = none
	redact  func([]byte) []byte // set once before use (Redact); nil = none
}

// Redact has fn rewrite every line before it is written, so that a secret
// anywhere in a record's fields never reaches the file: the session hands
// the peer-file handle's redaction, which writes a handle as
// <handle:<handle_id>> (tools.md PFILE-6). fn must keep the line one JSON
// object. Call it once, before the Writer is shared.
func (w *Writer) Redact(fn func(line []byte) []byte) { w.redact = fn }

// Observe has fn called with every record once it is written (for metrics),
// synchronously, after the write and outside the Writer's lock,
// so fn may take its own locks but must not block. Call it once, before the
// Writer is shared.
func (w *Writer) Observe(fn func(Record)) { w.observe = fn }

// Open creates or appends to the trace file at path (O_APPEND|O_CREATE, mode
// 0600, TRACE-1) for session sessionID. now is the clock; nil means time.Now.
// An error is the E-RUN-007 diagnostic.
func Open(path, sessionID string, now func() time.Time) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, diag.RunTraceWrite(path, osErrText(err)).WithErr(err)
	}
	return New(f, path, sessionID, now), nil
}

// New returns a Writer over an already open file (tests inject one to watch
// writes and syncs). path names the file in diagnostics.
func New(f File, path, sessionID string, now func() time.Time) *Writer {
	if now == nil {
		now = time.Now
	}
	w := &Writer{
		path: path, session: sessionID, now: now, f: f,
		failed: make(chan struct{}),
		tasks:  map[string]string{},
		turns:  map[string]string{},
	}
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil {
			w.size, w.sized = fi.Size(), true
		}
	}
	return w
}

// Path is the trace file's path.
func (w *Writer) Path() string { return w.path }

// Write appends r and returns its event id. The parent follows TRACE-2
// from r's type and its task_id. After a failed write every call returns
// the same E-RUN-007 diagnostic (Err); after Close, ErrClosed.
func (w *Writer) Write(r Record) (string, error) {
	k := kindOf(r)
	if k == nil {
		return "", errUnregistered
	}
	return w.write(k, r.task(), "", r)
}

// WriteTask is Write for a record whose parent is found through taskID
// rather than a task_id field: records such as control_change and
// control_refused carry none but hang from the turn that made the call
// (TRACE-2).
func (w *Writer) WriteTask(taskID string, r Record) (string, error) {
	return w.write(kindOf(r), taskID, "", r)
}

// TurnOf returns the event id of taskID's latest turn node (its newest agent
// inference record), or "" before its first turn. A tool that writes records
// later from its own goroutine takes it at call time, for WriteUnder.
func (w *Writer) TurnOf(taskID string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.turns[taskID]
}

// WriteUnder is WriteTask with the parent named: parentID, an earlier
// record's event id — the turn that made a call whose goroutine writes its
// records after later turns began (member_call_busy, member_call_start,
// TRACE-2). An empty parentID falls back to TRACE-2's rule for taskID.
func (w *Writer) WriteUnder(parentID, taskID string, r Record) (string, error) {
	return w.write(kindOf(r), taskID, parentID, r)
}

func (w *Writer) write(k *Kind, taskID, parentID string, r Record) (string, error) {
	if k == nil {
		// A programmer error, not an I/O one: nothing is written and the
		// session goes on.
		return "", errUnregistered
	}
	id, err := w.writeLocked(k, taskID, parentID, r)
	if err == nil && w.observe != nil {
		w.observe(r)
	}
	return id, err
}

func (w *Writer) writeLocked(k *Kind, taskID, parentID string, r Record) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return "", w.err
	}
	if w.closed {
		return "", ErrClosed
	}
	id := a2a.NewID(a2a.PrefixEvent)
	h := Header{EventID: id, SessionID: w.session, Timestamp: w.now().UnixMilli()}
	switch {
	case k.EventType == "session_start": // parent_id null
	case parentID != "":
		h.ParentID = &parentID
	default:
		h.ParentID = w.parentLocked(k.Parent, taskID)
	}
	line, err := MarshalLine(h, r)
	if err != nil {
		// A value that cannot be encoded is a programmer error too.
		return "", err
	}
	if w.redact != nil {
		line = w.redact(line)
	}
	line = append(line, '\n')
	if n, err := w.f.Write(line); err != nil {
		if n > 0 && w.sized {
			// A record is written whole or not at all: a short
			// write (a full disk) is cut back to the last whole line.
			if t, ok := w.f.(interface{ Truncate(int64) error }); ok {
				_ = t.Truncate(w.size)
			}
		}
		return "", w.failLocked(err)
	}
	w.size += int64(len(line))
	if k.Sync {
		if err := w.f.Sync(); err != nil {
			return "", w.failLocked(err)
		}
		if err := w.checkLocked(); err != nil {
			return "", err
		}
	}
	switch k.EventType {
	case "session_start":
		w.sesNode = id
	case "task_start":
		if taskID != "" {
			w.tasks[taskID] = id
		}
	case "inference":
		if taskID != "" {
			w.turns[taskID] = id
		}
	}
	return id, nil
}

// parentLocked picks the parent node (TRACE-2): turn, else task, else session.
func (w *Writer) parentLocked(p Parent, taskID string) *string {
	if p == ParentTurn {
		if id, ok := w.turns[taskID]; ok {
			return &id
		}
		p = ParentTask
	}
	if p == ParentTask {
		if id, ok := w.tasks[taskID]; ok {
			return &id
		}
	}
	if w.sesNode == "" {
		return nil
	}
	id := w.sesNode
	return &id
}

func (w *Writer) failLocked(err error) error {
	w.err = diag.RunTraceWrite(w.path, osErrText(err)).WithErr(err)
	close(w.failed)
	return w.err
}

// ErrRemoved is the cause of E-RUN-007 when the trace file was removed
// while the session ran (its records directory deleted): writes to it still
// succeed, into a file nobody can read again.
var ErrRemoved = errors.New("the file was removed (its link count is 0)")

// Check is a durable point without a record: it fails the writer
// with E-RUN-007 when the trace file has been removed, and returns the
// writer's error. Every fsynced record checks the same way.
func (w *Writer) Check() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || w.closed {
		return w.err
	}
	return w.checkLocked()
}

// checkLocked fails the writer when the file's link count is 0.
func (w *Writer) checkLocked() error {
	st, ok := w.f.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return nil
	}
	fi, err := st.Stat()
	if err != nil {
		return w.failLocked(err)
	}
	if n, ok := linkCount(fi); ok && n == 0 {
		return w.failLocked(ErrRemoved)
	}
	return nil
}

// Err returns the E-RUN-007 diagnostic of the first failed write, or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Failed returns a channel closed once a write has failed: the session ends
// with E-RUN-007 (LOOP-19).
func (w *Writer) Failed() <-chan struct{} { return w.failed }

// Close fsyncs and closes the file (TRACE-3). It is idempotent.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	serr := w.f.Sync()
	cerr := w.f.Close()
	if w.err != nil {
		return w.err
	}
	if err := errors.Join(serr, cerr); err != nil {
		return w.failLocked(err)
	}
	return nil
}

// osErrText is an os error's text without the operation and path the
// diagnostic already names ("permission denied", "no space left on device").
func osErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
