package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/murmur-go/mur/runtime/conversation"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/trace"
)

// runRecorded runs a launch task under extra (manifest text) with a driver
// that answers three times (keep_working), and returns the session, the
// driver's requests and the record of the task's context.
func runRecorded(t *testing.T, extra string) (*Session, []driver.Request, string) {
	t.Helper()
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "lifecycle:\n  keep_working: {limit: 2}\n"+extra), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, ptr("work"), nil)
	fd := &fakeDriver{reply: func(_ context.Context, n int, _ *driver.Request) (*driver.Response, error) {
		return textReply(fmt.Sprintf("answer %d", n)), nil
	}}
	l.Drivers["primary"] = fd
	s := startIn(t, l, nil, nil)
	if res := s.Run(); res.ExitStatus != StatusOK {
		t.Fatalf("Run = %+v", res)
	}
	starts := of[trace.TaskStart](t, readTrace(t, s))
	if len(starts) != 1 || starts[0].ContextID == "" {
		t.Fatalf("task_start records = %+v", starts)
	}
	return s, fd.requests(), starts[0].ContextID
}

// The record holds every message the model was shown, in order, with the
// ids it was shown under, then the last answer; each line names the task
// and the session.
func TestConversationRecord(t *testing.T) {
	s, reqs, ctxID := runRecorded(t, "")
	if len(reqs) != 3 {
		t.Fatalf("driver calls = %d, want 3", len(reqs))
	}
	path := filepath.Join(conversation.ContextDir(s.cfg.Home, "t-capsule", ctxID), conversation.File)
	es, err := conversation.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	last := reqs[2].Messages
	if got := conversation.Messages(es); len(got) != len(last)+1 || !reflect.DeepEqual(got[:len(last)], last) {
		t.Fatalf("record = %+v\nwant the last request's messages %+v and its answer", got, last)
	}
	if a := es[len(es)-1]; a.Role != driver.RoleAssistant || a.Blocks[0].Text != "answer 2" {
		t.Errorf("last entry = %+v, want the answer", a)
	}
	for _, e := range es {
		if e.SessionID != s.id || e.TaskID == "" || e.At == "" || len(e.ID) < 5 || e.ID[:4] != "msg_" {
			t.Errorf("entry %+v: want msg_ id, task, session %s and time", e, s.id)
		}
	}
}

// context.record: off writes nothing.
func TestConversationRecordOff(t *testing.T) {
	s, _, _ := runRecorded(t, "context: {record: off}\n")
	if _, err := os.Stat(filepath.Join(s.cfg.Home, "conversations")); !os.IsNotExist(err) {
		t.Errorf("conversations/ under record: off: %v", err)
	}
}

// context.record_store names the directory; max_messages trims the front
// of a record the launch opens, with a retention record naming what went.
func TestConversationRecordStoreRetain(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "context: {record_store: shey, retain: {max_messages: 2}}\n"), "script_version: 1\nrules: []\n")
	home := t.TempDir()
	var ctxID string
	for i := range 2 {
		l := prepareIn(t, dir, ptr("work"), nil)
		l.Drivers["primary"] = &fakeDriver{reply: func(context.Context, int, *driver.Request) (*driver.Response, error) {
			return textReply("done"), nil
		}}
		if i == 1 {
			l.LaunchContextID = ctxID
		}
		s, err := Start(l, StartConfig{URL: "http://127.0.0.1:1", Home: home})
		if err != nil {
			t.Fatal(err)
		}
		if res := s.Run(); res.ExitStatus != StatusOK {
			t.Fatalf("Run = %+v", res)
		}
		recs := readTrace(t, s)
		ctxID = of[trace.TaskStart](t, recs)[0].ContextID
		ret := of[trace.Retention](t, recs)
		if i == 0 && len(ret) != 0 {
			t.Errorf("first launch: retention %+v", ret)
		}
		if i == 1 && (len(ret) != 1 || ret[0].Store != "conversations" || ret[0].Reason != "max_messages" || len(ret[0].Removed) != 1) {
			t.Errorf("second launch: retention %+v, want one max_messages removal", ret)
		}
	}
	es, err := conversation.Read(filepath.Join(conversation.ContextDir(home, "shey", ctxID), conversation.File))
	if err != nil || len(es) != 5 {
		t.Fatalf("record = %d entries, %v; want 2 kept + 3 of the second launch", len(es), err)
	}
}
