package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/runtime/conversation"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/murhome"
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
}

// firstContext reads a trace.jsonl only as far as its first task_start
// carrying a context id, so a trace cut by a kill still resumes: its
// session id and that context id ("" when there is none).
func firstContext(tracePath string) (sessionID, contextID string, err error) {
	f, err := os.Open(tracePath)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var h struct {
			EventType string `json:"event_type"`
			SessionID string `json:"session_id"`
			ContextID string `json:"context_id"`
		}
		if json.Unmarshal(sc.Bytes(), &h) != nil {
			continue // a line cut by the kill
		}
		if sessionID == "" {
			sessionID = h.SessionID
		}
		if h.EventType == "task_start" && h.ContextID != "" {
			return sessionID, h.ContextID, nil
		}
	}
	return sessionID, "", sc.Err()
}

// Resume makes l continue the session whose trace.jsonl is tracePath: the
// launch task runs in that session's context, with the context's
// conversation record in front of it (mode full). Errors are E-RUN-016
// (no task_start with a context id), E-RUN-017 (no record), E-RUN-018
// (mode compact, no on-compaction hook) or I/O errors. Nothing is made.
func (l *Launch) Resume(tracePath, mode string) error {
	if mode == ResumeCompact {
		if !l.hasCompactionHook() {
			return diag.RunResumeCompactNoHook()
		}
		return errors.New("--resume-mode compact is not supported by this build: compaction is not built yet")
	}
	ses, ctxID, err := firstContext(tracePath)
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
		return diag.RunResumeNoRecord(ses, ctxID, diag.NoRecordProcess)
	}
	history, path, err := l.readRecord(ctxID)
	switch {
	case err != nil:
		return err
	case history == nil:
		return diag.RunResumeNoRecord(ses, ctxID, diag.NoRecordFile(path))
	}
	l.LaunchContextID = ctxID
	l.Resumed = &Resumed{SessionID: ses, ContextID: ctxID, History: history}
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
	history, _, err := l.readRecord(ctxID)
	if err != nil || history == nil {
		return err
	}
	l.Resumed = &Resumed{ContextID: ctxID, History: history}
	return nil
}

// readRecord reads context ctxID's conversation record: its messages, nil
// when there is no record file, and the file's path.
func (l *Launch) readRecord(ctxID string) ([]driver.Message, string, error) {
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
	return append([]driver.Message{}, conversation.Messages(es)...), path, nil
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
