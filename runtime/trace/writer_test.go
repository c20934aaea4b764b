package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/diag"
)

// fakeFile records writes and the line count at each Sync.
type fakeFile struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	writes   int
	syncs    []int // lines written when Sync was called
	writeErr error
	closed   bool
}

func (f *fakeFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.writeErr != nil {
		return 0, f.writeErr
	}
	f.writes++
	return f.buf.Write(p)
}

func (f *fakeFile) Sync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.syncs = append(f.syncs, f.writes)
	return nil
}

func (f *fakeFile) Close() error { f.closed = true; return nil }

func fixedNow() time.Time { return time.UnixMilli(1760000000123) }

// keysInOrder returns a JSON object's keys in document order.
func keysInOrder(t *testing.T, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestWriteEnvelopeOrder_TRACE1(t *testing.T) {
	ff := &fakeFile{}
	w := New(ff, "trace.jsonl", "ses_x", fixedNow)
	if _, err := w.Write(FormationEnded{FormationID: "frm_x"}); err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSuffix(ff.buf.String(), "\n")
	if strings.Contains(line, "\n") || !strings.HasSuffix(ff.buf.String(), "\n") {
		t.Fatalf("line = %q, want one \\n-terminated line", ff.buf.String())
	}
	got := strings.Join(keysInOrder(t, line), ",")
	want := "event_type,event_id,parent_id,session_id,timestamp,formation_id"
	if got != want {
		t.Errorf("keys = %s, want %s", got, want)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	if m["parent_id"] != nil || m["session_id"] != "ses_x" || m["timestamp"] != float64(1760000000123) {
		t.Errorf("envelope = %v", m)
	}
	if id, _ := m["event_id"].(string); !a2a.ValidID(id, a2a.PrefixEvent) {
		t.Errorf("event_id = %q, want evt_ + 32 hex", id)
	}
	if ff.writes != 1 {
		t.Errorf("writes = %d, want 1 write per line", ff.writes)
	}
}

func TestNoHTMLEscaping_TRACE1(t *testing.T) {
	ff := &fakeFile{}
	w := New(ff, "t", "ses_x", fixedNow)
	if _, err := w.Write(Shell{Command: "a < b && c > d"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ff.buf.String(), `"command":"a < b && c > d"`) {
		t.Errorf("line = %s", ff.buf.String())
	}
}

func TestParents_TRACE2(t *testing.T) {
	ff := &fakeFile{}
	w := New(ff, "t", "ses_x", fixedNow)
	must := func(id string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	ses := must(w.Write(SessionStart{}))
	recv := must(w.Write(A2ATaskReceived{TaskID: "tsk_a"}))
	// Before task_start, a turn-parented record falls back to the session.
	early := must(w.Write(ToolCall{TaskID: "tsk_a"}))
	task := must(w.Write(TaskStart{TaskID: "tsk_a"}))
	// No turn yet: a turn-parented record falls back to the task.
	spend := must(w.Write(SpendCeilingReached{TaskID: "tsk_a"}))
	turn0 := must(w.Write(Inference{Turn: 0, TaskID: "tsk_a"}))
	call := must(w.Write(ToolCall{TaskID: "tsk_a"}))
	shell := must(w.Write(&Shell{TaskID: "tsk_a"})) // a pointer to a record type is that type
	turn1 := must(w.Write(Inference{Turn: 1, TaskID: "tsk_a"}))
	if got := w.TurnOf("tsk_a"); got != turn1 {
		t.Errorf("TurnOf = %q, want the latest turn %q", got, turn1)
	}
	status := must(w.Write(SessionStatus{Turn: 1, TaskID: "tsk_a", Status: json.RawMessage(`{}`)}))
	late := must(w.WriteUnder(turn0, "tsk_a", MemberCallBusy{TaskID: "tsk_a"}))
	fallback := must(w.WriteUnder("", "tsk_a", MemberCallStart{TaskID: "tsk_a"}))
	change := must(w.WriteTask("tsk_a", ControlChange{Principal: "agent"}))
	kw := must(w.Write(KeepWorking{TaskID: "tsk_a"}))
	end := must(w.Write(TaskEnd{TaskID: "tsk_a"}))
	completed := must(w.Write(ShellCompleted{WorkID: "wrk_1"}))
	other := must(w.Write(TaskCanceled{TaskID: "tsk_queued"}))
	sesEnd := must(w.Write(SessionEnd{}))

	parents := map[string]string{}
	sc := bufio.NewScanner(&ff.buf)
	for sc.Scan() {
		var m struct {
			ID     string  `json:"event_id"`
			Parent *string `json:"parent_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if m.Parent != nil {
			if _, seen := parents[*m.Parent]; !seen {
				t.Errorf("parent %s of %s names no earlier line", *m.Parent, m.ID)
			}
			parents[m.ID] = *m.Parent
		} else {
			parents[m.ID] = ""
		}
	}
	cases := []struct {
		name, id, want string
	}{
		{"session_start has none", ses, ""},
		{"a2a_task_received → session", recv, ses},
		{"tool_call before task → session", early, ses},
		{"task_start → session", task, ses},
		{"spend_ceiling_reached without turn → task", spend, task},
		{"inference → task", turn0, task},
		{"tool_call → turn", call, turn0},
		{"shell → turn", shell, turn0},
		{"session_status → latest turn", status, turn1},
		{"member_call_busy written later under the calling turn → turn 0", late, turn0},
		{"WriteUnder with no parent → TRACE-2's rule", fallback, turn1},
		{"control_change (no task_id field) → turn via WriteTask", change, turn1},
		{"keep_working → task", kw, task},
		{"task_end → task", end, task},
		{"shell_completed → session", completed, ses},
		{"task_canceled of a queued task → session", other, ses},
		{"session_end → session", sesEnd, ses},
	}
	for _, c := range cases {
		if got := parents[c.id]; got != c.want {
			t.Errorf("%s: parent = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestFsyncPoints_TRACE3(t *testing.T) {
	ff := &fakeFile{}
	w := New(ff, "t", "ses_x", fixedNow)
	recs := []Record{SessionStart{}, Retention{}, TaskStart{TaskID: "tsk_a"}, Inference{TaskID: "tsk_a"},
		ToolCall{TaskID: "tsk_a"}, Shell{TaskID: "tsk_a"}, ShellDetached{TaskID: "tsk_a"}, TaskEnd{TaskID: "tsk_a"},
		ShellCompleted{}, SessionEnd{}}
	for _, r := range recs {
		if _, err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Line numbers (1-based) after which a sync happened: session_start (1),
	// task_start (3), shell_detached (7), task_end (8), session_end (10), close (10).
	want := []int{1, 3, 7, 8, 10, 10}
	if !equalInts(ff.syncs, want) {
		t.Errorf("syncs after lines %v, want %v", ff.syncs, want)
	}
	if !ff.closed {
		t.Error("file not closed")
	}
	if _, err := w.Write(SessionEnd{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestWriteFailure_ERUN007(t *testing.T) {
	ff := &fakeFile{writeErr: &os.PathError{Op: "write", Path: "/r/trace.jsonl", Err: errors.New("no space left on device")}}
	w := New(ff, "/r/trace.jsonl", "ses_x", fixedNow)
	_, err := w.Write(SessionStart{})
	if !diag.Is(err, diag.ERUN007) {
		t.Fatalf("Write error = %v, want E-RUN-007", err)
	}
	want := "error[E-RUN-007]: the trace could not be written: /r/trace.jsonl: no space left on device; the session ends\n"
	d, _ := diag.As(err)
	if got := d.Render(); got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	select {
	case <-w.Failed():
	default:
		t.Error("Failed() not closed after a failed write")
	}
	ff.writeErr = nil
	if _, err2 := w.Write(TaskStart{}); err2 != err {
		t.Errorf("second Write = %v, want the sticky %v", err2, err)
	}
	if ff.writes != 0 {
		t.Errorf("writes = %d after failure, want 0", ff.writes)
	}
}

func TestOpenFileMode_TRACE1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	w, err := Open(path, "ses_x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(SessionStart{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	// Reopening appends.
	w2, err := Open(path, "ses_x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Write(SessionEnd{}); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), "\n"); n != 2 {
		t.Errorf("lines = %d, want 2 (append)", n)
	}
}

func TestOpenUnwritable_ERUN007(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	_, err := Open(filepath.Join(dir, "trace.jsonl"), "ses_x", nil)
	if !diag.Is(err, diag.ERUN007) {
		t.Fatalf("Open = %v, want E-RUN-007", err)
	}
	if !strings.HasSuffix(err.Error(), ": no such file or directory; the session ends") {
		t.Errorf("message = %q", err.Error())
	}
}

func TestConcurrentWritesWholeLines_TRACE1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	w, err := Open(path, "ses_x", nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				if _, err := w.Write(Shell{ExitCode: i, StdoutBytes: int64(j), Command: strings.Repeat("p", 500)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	w.Close()
	f, _ := os.Open(path)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	prev := ""
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		id := m["event_id"].(string)
		if id <= prev {
			t.Errorf("line %d: id %s not after %s (id order = file order)", n+1, id, prev)
		}
		prev = id
		n++
	}
	if n != 400 {
		t.Errorf("lines = %d, want 400", n)
	}
}

// shortFile is an *os.File whose writes, once full is set, write half the
// line and fail as a full disk does.
type shortFile struct {
	*os.File
	full bool
}

func (f *shortFile) Write(p []byte) (int, error) {
	if !f.full {
		return f.File.Write(p)
	}
	n, _ := f.File.Write(p[:len(p)/2])
	return n, syscall.ENOSPC
}

// A short write is cut back to the last whole line, and the writer
// fails with E-RUN-007 (LOOP-19).
func TestShortWriteCutBack_LOOP19(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	sf := &shortFile{File: f}
	w := New(sf, path, "ses_x", fixedNow)
	if _, err := w.Write(FormationEnded{FormationID: "frm_a"}); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(path)
	sf.full = true
	_, err = w.Write(FormationEnded{FormationID: "frm_b"})
	var d *diag.Diagnostic
	if !errors.As(err, &d) || d.Code != diag.ERUN007 || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Write on a full disk = %v, want E-RUN-007 wrapping ENOSPC", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, whole) {
		t.Errorf("trace after a short write = %q, want it cut back to %q", got, whole)
	}
	_ = w.Close()
}

// A trace file removed under the session fails the writer at the
// next durable record, naming the path.
func TestRemovedTraceFails_ERUN007(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	w, err := Open(path, "ses_x", fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Check(); err != nil {
		t.Fatalf("Check = %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(FormationEnded{FormationID: "frm_a"}); err != nil {
		t.Fatalf("a record without fsync = %v, want nil (not a durable point)", err)
	}
	_, err = w.Write(SessionEnd{ExitStatus: "ok"})
	want := "the trace could not be written: " + path + ": the file was removed (its link count is 0); the session ends"
	if err == nil || err.Error() != want || !errors.Is(err, ErrRemoved) {
		t.Fatalf("session_end after removal = %v, want %q", err, want)
	}
	if err := w.Check(); err == nil || err.Error() != want {
		t.Errorf("Check after the failure = %v", err)
	}
}
