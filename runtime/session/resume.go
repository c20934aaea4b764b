package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/conversation"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/harness"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// Resume modes of mur run --resume-mode.
const (
	ResumeFull    = "full"
	ResumeCompact = "compact"
)

// Resumed is what a launch continues from (mur run --resume, or --context
// naming a context with a record): the session it resumes ("" under
// --context), the context and the conversation record's messages, which the
// history of the context's first task starts with.
type Resumed struct {
	SessionID string
	ContextID string
	History   []driver.Message
	// Waiting is the context's task the session left waiting for input
	// (--resume only), nil when none.
	Waiting *Waiting
	// Lost are the background commands the session left with no outcome
	// (--resume only), reported once by a detached_lost completion task.
	Lost []trace.ShellLost
	// Compact: the conversation is compacted before the first turn of the
	// task that continues it (--resume-mode compact).
	Compact bool
	// TracePath is the resumed session's trace.jsonl (--resume only).
	TracePath  string
	startEvent string
}

// Waiting is a task the resumed session left waiting for input (input.md):
// it started and never ended, and its context's record ends with its
// request-input call. The resumed session serves it again under its id, in
// INPUT_REQUIRED.
type Waiting struct {
	TaskID    string
	MessageID string // the messageId of the message that started it
	Prov      tasktable.Provenance
	Caller    tasktable.Caller
	// From is the index in the record of the task's first message.
	From int
}

// traceFacts is what a resume reads of a session's trace.jsonl: its
// session id, the context of its first task_start carrying one, and the
// last task of that context that started and never ended (nil when none).
type traceFacts struct {
	sessionID, contextID string
	unended              *Waiting
	startEvent           string // session_start's event id
	lost                 []trace.ShellLost
}

// readResumeTrace reads a session's trace.jsonl, skipping lines it cannot
// read (a line cut by a kill), so a trace cut by a kill still resumes.
func readResumeTrace(tracePath string) (traceFacts, error) {
	var tf traceFacts
	f, err := os.Open(tracePath)
	if err != nil {
		return tf, err
	}
	defer f.Close()
	type task struct {
		w       Waiting
		context string
		started bool
		ended   bool
	}
	tasks := map[string]*task{}
	var order []string
	detached := map[string]trace.ShellLost{} // background commands with no outcome yet
	var works []string
	get := func(id string) *task {
		tk := tasks[id]
		if tk == nil {
			tk = &task{w: Waiting{TaskID: id}}
			tasks[id] = tk
		}
		return tk
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var h struct {
			EventType    string `json:"event_type"`
			SessionID    string `json:"session_id"`
			ContextID    string `json:"context_id"`
			TaskID       string `json:"task_id"`
			MessageID    string `json:"message_id"`
			Source       string `json:"source"`
			Origin       string `json:"origin"`
			Trust        string `json:"trust"`
			CallerMember string `json:"caller_member"`
			EventID      string `json:"event_id"`
			Timestamp    int64  `json:"timestamp"`
			WorkID       string `json:"work_id"`
			Binary       string `json:"binary"`
			Command      string `json:"command"`
		}
		if json.Unmarshal(sc.Bytes(), &h) != nil {
			continue
		}
		if tf.sessionID == "" {
			tf.sessionID = h.SessionID
		}
		switch h.EventType {
		case "session_start":
			tf.startEvent = h.EventID
		case "shell_detached":
			detached[h.WorkID] = trace.ShellLost{WorkID: h.WorkID, Binary: h.Binary, Command: h.Command, DetachedAtMS: h.Timestamp}
			works = append(works, h.WorkID)
		case "shell_completed", "shell_abandoned", "shell_lost":
			delete(detached, h.WorkID)
		case "a2a_task_received":
			get(h.TaskID).w.MessageID = h.MessageID
		case "task_start":
			if tf.contextID == "" && h.ContextID != "" {
				tf.contextID = h.ContextID
			}
			tk := get(h.TaskID)
			tk.context, tk.started = h.ContextID, true
			tk.w.Prov = tasktable.Provenance{Origin: a2a.Origin(h.Origin), Trust: a2a.Trust(h.Trust), Source: h.Source}
			tk.w.Caller = tasktable.Caller{Member: h.CallerMember}
			order = append(order, h.TaskID)
		case "task_end":
			get(h.TaskID).ended = true
		}
	}
	for _, id := range order {
		if tk := tasks[id]; !tk.ended && tk.context == tf.contextID {
			w := tk.w
			tf.unended = &w
		}
	}
	for _, id := range works {
		if l, ok := detached[id]; ok {
			tf.lost = append(tf.lost, l)
			delete(detached, id)
		}
	}
	return tf, sc.Err()
}

// waitingIn reports whether the record es shows task w waiting for input:
// its last entry is w's and the model's request-input call, with no result
// after it (the record takes that turn before the question is put). w.From
// is set to the task's first entry.
func waitingIn(es []conversation.Entry, w *Waiting) bool {
	if len(es) == 0 {
		return false
	}
	last := es[len(es)-1]
	if last.TaskID != w.TaskID || last.Role != driver.RoleAssistant {
		return false
	}
	uses := (&driver.Response{Blocks: last.Blocks}).ToolUses()
	for _, u := range uses {
		if u.Name != tool.NameRequestInput {
			return false
		}
	}
	w.From = slices.IndexFunc(es, func(e conversation.Entry) bool { return e.TaskID == w.TaskID })
	return len(uses) > 0
}

// Resume makes l continue the session whose trace.jsonl is tracePath: the
// launch task runs in that session's context, with the context's
// conversation record in front of it (mode full). Errors are E-RUN-016
// (no task_start with a context id), E-RUN-017 (no record), E-RUN-018
// (mode compact, no on-compaction hook) or I/O errors. Nothing is made.
func (l *Launch) Resume(tracePath, mode string) error {
	if mode == ResumeCompact && !l.hasCompactionHook() && !l.Manifest.CompactHook() {
		return diag.RunResumeCompactNoHook()
	}
	tf, err := readResumeTrace(tracePath)
	ses, ctxID := tf.sessionID, tf.contextID
	if err != nil {
		return diag.IOError(tracePath, err.Error())
	}
	if ses == "" {
		ses = filepath.Base(filepath.Dir(tracePath))
	}
	if ctxID == "" {
		return diag.RunResumeNoTask(ses)
	}
	m := l.Manifest
	switch {
	case m.Context.Record == "off":
		return diag.RunResumeNoRecord(ses, ctxID, diag.NoRecordOff)
	case m.Inference.Process():
		return l.resumeThread(ses, ctxID)
	}
	es, path, err := l.readRecord(ctxID)
	switch {
	case err != nil:
		return err
	case es == nil:
		return diag.RunResumeNoRecord(ses, ctxID, diag.NoRecordFile(path))
	}
	l.LaunchContextID = ctxID
	l.Resumed = &Resumed{SessionID: ses, ContextID: ctxID, History: conversation.Messages(es),
		Lost: tf.lost, TracePath: tracePath, startEvent: tf.startEvent, Compact: mode == ResumeCompact}
	if w := tf.unended; w != nil && waitingIn(es, w) {
		l.Resumed.Waiting = w
	}
	return nil
}

// Continue makes l's launch task run in context ctxID (mur run --context):
// when the context has a conversation record, the task's history starts
// with it, as under --resume; with none (or context.record: off, or a
// harness's own session under transport: process) the context starts
// fresh.
func (l *Launch) Continue(ctxID string) error {
	l.LaunchContextID = ctxID
	if m := l.Manifest; m.Context.Record == "off" || m.Inference.Process() {
		return nil
	}
	es, _, err := l.readRecord(ctxID)
	if err != nil || es == nil {
		return err
	}
	l.Resumed = &Resumed{ContextID: ctxID, History: conversation.Messages(es)}
	return nil
}

// readRecord reads context ctxID's conversation record: its entries (nil
// when there is no record file) and the file's path.
func (l *Launch) readRecord(ctxID string) ([]conversation.Entry, string, error) {
	home, err := murhome.Home(l.Opts.Getenv)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(conversation.ContextDir(home, l.Manifest.Context.RecordStore, ctxID), conversation.File)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil
	}
	es, err := conversation.Read(path)
	if err != nil {
		return nil, path, diag.IOError(path, err.Error())
	}
	return append([]conversation.Entry{}, es...), path, nil
}

// takeResumed returns the resumed conversation for the first task of its
// context, once; later tasks start as any other does.
func (s *Session) takeResumed(contextID string) ([]driver.Message, bool) {
	r := s.l.Resumed
	if r == nil || contextID != r.ContextID {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resumeTaken {
		return nil, false
	}
	s.resumeTaken = true
	return append([]driver.Message(nil), r.History...), true
}

// hasCompactionHook reports whether a hook is bound to on-compaction.
func (l *Launch) hasCompactionHook() bool {
	for _, h := range l.hooks {
		if b := h.m.Hook.Binding; b == "on-compaction" {
			return true
		}
	}
	return false
}

// restoreWaiting puts the task the resumed session left waiting for input
// back in the task table under its id, first in line: it runs again from
// the record and asks its question anew (input.md).
func (s *Session) restoreWaiting() error {
	r := s.l.Resumed
	if r == nil || r.Waiting == nil {
		return nil
	}
	w := r.Waiting
	msg := a2a.Message{MessageID: w.MessageID, Role: a2a.RoleUser, ContextID: a2a.ContextID(r.ContextID),
		Parts: []a2a.Part{a2a.TextPart(r.History[w.From].Text())}}
	if _, err := s.reg.Restore(a2a.TaskID(w.TaskID), w.Prov, w.Caller, msg); err != nil {
		return fmt.Errorf("restore the waiting task: %w", err)
	}
	return nil
}

// resumeWaiting starts the task the resumed session left waiting for input
// from the record: its history is the whole record, its own messages from
// w.From, and the model's request-input call the record ends with is made
// again before the first turn (the question is put anew). It reports
// whether t is that task.
func (t *taskRun) resumeWaiting() bool {
	r := t.s.l.Resumed
	if r == nil || r.Waiting == nil || r.Waiting.TaskID != t.id {
		return false
	}
	history, ok := t.s.takeResumed(string(t.run.ContextID()))
	if !ok {
		return false
	}
	t.msgs, t.recorded, t.from = history, len(history), r.Waiting.From
	t.pending = (&driver.Response{Blocks: history[len(history)-1].Blocks}).ToolUses()
	t.mu.Lock()
	t.turns++ // the asking turn is this task's too
	t.mu.Unlock()
	return true
}

// reportLost starts the one detached_lost completion task (origin
// completion, lane bg) naming every background command the resumed session
// left with no outcome, and appends a shell_lost line for each to that
// session's trace, which keeps a second resume from reporting them again.
func (s *Session) reportLost() {
	r := s.l.Resumed
	if r == nil || len(r.Lost) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s ended without an outcome for %d background command(s); they are lost: no exit code, output or log exists.\n", r.SessionID, len(r.Lost))
	for _, l := range r.Lost {
		fmt.Fprintf(&b, "\n- %s: %s (%s), moved to the background at %s (%d ms)", l.WorkID, l.Command, l.Binary,
			time.UnixMilli(l.DetachedAtMS).UTC().Format("2006-01-02T15:04:05.000Z07:00"), l.DetachedAtMS)
	}
	msg := a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(b.String())}}
	prov := tasktable.Provenance{Origin: a2a.OriginCompletion, Trust: a2a.TrustTrusted, Source: sourceDetachedLost}
	t, err := s.reg.Submit(prov, msg)
	if err != nil {
		return
	}
	if err := appendLost(r, s.id, string(t.ID), s.now); err != nil {
		s.bootstrap(fmt.Sprintf("shell_lost could not be written to %s: %v\n", r.TracePath, err))
	}
}

// sourceDetachedLost is the task_start source of the report of lost
// background commands.
const sourceDetachedLost = "detached_lost"

// appendLost appends r.Lost's shell_lost lines to the resumed session's
// trace, after a line cut by the kill is ended.
func appendLost(r *Resumed, by, taskID string, now func() time.Time) error {
	f, err := os.OpenFile(r.TracePath, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			_, _ = f.Write([]byte("\n"))
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	w, err := trace.Open(r.TracePath, r.SessionID, now)
	if err != nil {
		return err
	}
	for _, l := range r.Lost {
		l.ReconciledBySession, l.ReconciledTaskID = by, taskID
		if _, err := w.WriteUnder(r.startEvent, "", l); err != nil {
			_ = w.Close()
			return err
		}
	}
	return w.Close()
}

// resumeThread is Resume under transport: process, where the harness keeps
// the conversation: under lifecycle.conversation: threaded the context's
// harness-session.json names the harness session the launch task resumes
// (THR-2). Under stateless, or with no such file, it is E-RUN-017.
func (l *Launch) resumeThread(ses, ctxID string) error {
	m := l.Manifest
	home, err := murhome.Home(l.Opts.Getenv)
	if err != nil {
		return err
	}
	if m.Lifecycle.Conversation != "threaded" {
		return diag.RunResumeNoRecord(ses, ctxID, diag.NoRecordProcess)
	}
	path := harness.ThreadPath(home, m.Name, ctxID)
	switch th, err := harness.ReadThread(path); {
	case err != nil:
		return diag.IOError(path, err.Error())
	case th == nil:
		return diag.RunResumeNoRecord(ses, ctxID, diag.NoRecordFile(path))
	}
	l.LaunchContextID = ctxID
	l.Resumed = &Resumed{SessionID: ses, ContextID: ctxID}
	return nil
}
