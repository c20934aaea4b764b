package session

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/conversation"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/trace"
)

// records are the conversation records the session has open, one per
// context id, opened by the first task of the context.
type records struct {
	mu sync.Mutex
	w  map[string]*conversation.Writer
}

// recordOn reports whether the session keeps conversation records: under
// context.record: on, on the http transport (a harness keeps its own).
func (s *Session) recordOn() bool {
	return s.m.Context.Record == "on" && s.hx == nil
}

// recordDir is $MURMUR_HOME/conversations/<context.record_store>.
func (s *Session) recordDir() string {
	return conversation.RecordDir(s.cfg.Home, s.m.Context.RecordStore)
}

// retainRecords runs context.retain.max_age right after session_start: a
// record of the store not written to for that long is removed, reported in
// one retention record.
func (s *Session) retainRecords() {
	r := s.m.Context.Retain
	if !s.recordOn() || r == nil || r.MaxAge <= 0 {
		return
	}
	removed, err := conversation.DropOlder(s.recordDir(), s.now().Add(-r.MaxAge), "")
	if err != nil {
		s.bootstrap(fmt.Sprintf("conversation retention: %v\n", err))
	}
	if len(removed) > 0 {
		_, _ = s.tr.Write(trace.Retention{Store: conversation.Store, Reason: conversation.ReasonMaxAge, Removed: removed})
	}
}

// record returns the context's open record, opening it (and trimming it to
// context.retain.max_messages) on first use; nil when records are off or
// it cannot be opened (said in bootstrap.log once per context).
func (s *Session) record(contextID string) *conversation.Writer {
	if !s.recordOn() || contextID == "" {
		return nil
	}
	s.recs.mu.Lock()
	defer s.recs.mu.Unlock()
	if w, ok := s.recs.w[contextID]; ok {
		return w
	}
	if s.recs.w == nil {
		s.recs.w = map[string]*conversation.Writer{}
	}
	dir := conversation.ContextDir(s.cfg.Home, s.m.Context.RecordStore, contextID)
	if r := s.m.Context.Retain; r != nil && r.MaxMessages > 0 {
		removed, err := conversation.TrimFront(filepath.Join(dir, conversation.File), r.MaxMessages)
		if err != nil {
			s.bootstrap(fmt.Sprintf("conversation retention: %v\n", err))
		}
		if len(removed) > 0 {
			_, _ = s.tr.Write(trace.Retention{Store: conversation.Store, Reason: conversation.ReasonMaxMessages, Removed: removed})
		}
	}
	w, err := conversation.Open(dir)
	if err != nil {
		s.bootstrap(fmt.Sprintf("conversation record: %v\n", err))
	} else {
		w.Redact(peerplane.RedactBytes) // a handle's token stays out of the record, as out of the trace
	}
	s.recs.w[contextID] = w // nil when it could not be opened: not retried
	return w
}

// closeRecords fsyncs and closes every open record.
func (s *Session) closeRecords() {
	s.recs.mu.Lock()
	defer s.recs.mu.Unlock()
	for id, w := range s.recs.w {
		if w != nil {
			if err := w.Close(); err != nil {
				s.bootstrap(fmt.Sprintf("conversation record: %v\n", err))
			}
		}
		delete(s.recs.w, id)
	}
}

// recordMessages appends the task's messages not yet in its record; sync
// fsyncs the record after them (where the trace fsyncs: a task's start and
// end).
func (t *taskRun) recordMessages(sync bool) {
	w := t.s.record(string(t.run.ContextID()))
	if w == nil {
		return
	}
	if t.recorded > len(t.msgs) { // the history was replaced: record it from its start
		t.recorded = 0
	}
	if t.recorded < len(t.msgs) {
		at := t.s.now().UTC().Format("2006-01-02T15:04:05.000Z07:00")
		es := make([]conversation.Entry, 0, len(t.msgs)-t.recorded)
		for _, m := range t.msgs[t.recorded:] {
			es = append(es, conversation.Entry{ID: m.ID, Role: m.Role, Blocks: m.Blocks, TaskID: t.id, SessionID: t.s.id, At: at})
		}
		if err := w.Append(es...); err != nil {
			t.s.bootstrap(fmt.Sprintf("conversation record: %v\n", err))
			return
		}
		t.recorded = len(t.msgs)
	}
	if sync {
		if err := w.Sync(); err != nil {
			t.s.bootstrap(fmt.Sprintf("conversation record: %v\n", err))
		}
	}
}

// recordCompaction appends the compaction of the task's conversation into
// msgs to its record, after the messages not yet in it: a compaction entry
// replacing them from the conversation's first, so a resume starts from
// what the model went on from (fsynced, as the trace's compaction record).
func (t *taskRun) recordCompaction(msgs []driver.Message) {
	t.recordMessages(false)
	t.recorded = len(msgs)
	w := t.s.record(string(t.run.ContextID()))
	if w == nil || len(t.msgs) == 0 {
		return
	}
	at := t.s.now().UTC().Format("2006-01-02T15:04:05.000Z07:00")
	e := conversation.Entry{ID: a2a.NewID(a2a.PrefixMessage), Kind: conversation.KindCompaction, Replaces: t.msgs[0].ID,
		Messages: msgs, TaskID: t.id, SessionID: t.s.id, At: at}
	if err := w.Append(e); err != nil {
		t.s.bootstrap(fmt.Sprintf("conversation record: %v\n", err))
		return
	}
	if err := w.Sync(); err != nil {
		t.s.bootstrap(fmt.Sprintf("conversation record: %v\n", err))
	}
}
