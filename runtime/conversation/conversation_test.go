package conversation

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/driver"
)

func entry(id, text string) Entry {
	return Entry{ID: id, Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(text)},
		TaskID: "tsk_1", SessionID: "ses_1", At: "2026-12-04T20:00:00.000Z"}
}

// A record is one JSON line per entry, 0600 in a 0700 directory, read back
// in order.
func TestAppendRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "conversations", "cap", "ctx-1")
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{entry("msg_a", "one"), entry("msg_b", "two")}
	if err := w.Append(want...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		t.Fatal(err)
	}
	const line0 = `{"id":"msg_a","role":"user","blocks":[{"type":"text","text":"one"}],"task_id":"tsk_1","session_id":"ses_1","at":"2026-12-04T20:00:00.000Z"}` + "\n"
	if got := string(b[:len(line0)]); got != line0 {
		t.Fatalf("first line = %q, want %q", got, line0)
	}
	got, err := Read(filepath.Join(dir, File))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Read = %+v, %v; want %+v", got, err, want)
	}
	for p, mode := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, File): 0o600} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, %v; want %v", p, st.Mode().Perm(), err, mode)
		}
	}
}

// A final line cut by a crash is skipped by the reader and cut off by the
// next writer, whose entry then starts on its own line.
func TestCutFinalLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	whole := `{"id":"msg_a","role":"user","blocks":[{"type":"text","text":"one"}],"task_id":"","session_id":"","at":""}` + "\n"
	if err := os.WriteFile(path, []byte(whole+`{"id":"msg_b","role":"assi`), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil || len(got) != 1 || got[0].ID != "msg_a" {
		t.Fatalf("Read = %+v, %v; want msg_a alone", got, err)
	}
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if w.Len() != 1 {
		t.Errorf("Len = %d, want 1", w.Len())
	}
	if err := w.Append(entry("msg_c", "three")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got, err = Read(path)
	if err != nil || len(got) != 2 || got[1].ID != "msg_c" {
		t.Fatalf("after append: %+v, %v; want msg_a, msg_c", got, err)
	}
	// A malformed whole line is an error, not skipped.
	if err := os.WriteFile(path, []byte("{not json}\n"+whole), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil {
		t.Error("a malformed whole line was read without error")
	}
}

func TestTrimFront(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Append(entry("msg_1", "a"), entry("msg_2", "b"), entry("msg_3", "c"))
	w.Close()
	path := filepath.Join(dir, File)
	removed, err := TrimFront(path, 2)
	if err != nil || !reflect.DeepEqual(removed, []string{"msg_1"}) {
		t.Fatalf("TrimFront = %v, %v; want [msg_1]", removed, err)
	}
	got, _ := Read(path)
	if len(got) != 2 || got[0].ID != "msg_2" {
		t.Fatalf("after trim: %+v", got)
	}
	if removed, err := TrimFront(path, 2); err != nil || removed != nil {
		t.Fatalf("second TrimFront = %v, %v; want nothing", removed, err)
	}
}

func TestDropOlder(t *testing.T) {
	rec := t.TempDir()
	old := time.Now().Add(-48 * time.Hour)
	for _, name := range []string{"ctx-old", "ctx-new", "ctx-keep"} {
		w, err := Open(filepath.Join(rec, name))
		if err != nil {
			t.Fatal(err)
		}
		_ = w.Append(entry("msg_"+name, name))
		w.Close()
	}
	for _, name := range []string{"ctx-old", "ctx-keep"} {
		if err := os.Chtimes(filepath.Join(rec, name, File), old, old); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := DropOlder(rec, time.Now().Add(-24*time.Hour), "ctx-keep")
	if err != nil || !reflect.DeepEqual(removed, []string{"ctx-old"}) {
		t.Fatalf("DropOlder = %v, %v; want [ctx-old]", removed, err)
	}
	for name, want := range map[string]bool{"ctx-old": false, "ctx-new": true, "ctx-keep": true} {
		if _, err := os.Stat(filepath.Join(rec, name)); (err == nil) != want {
			t.Errorf("%s present = %v, want %v", name, err == nil, want)
		}
	}
}

func TestContextDirName(t *testing.T) {
	if got := ContextDirName("ctx_abc-1.2"); got != "ctx_abc-1.2" {
		t.Errorf("plain id: %q", got)
	}
	if got := ContextDirName("../etc"); got == "../etc" || len(got) != len("ctx-sha256-")+64 {
		t.Errorf("unsafe id used as a path: %q", got)
	}
}

// A compaction entry replaces the messages from the one it names with its
// own; naming none there, it replaces them all.
func TestMessagesCompaction(t *testing.T) {
	msg := func(id string) Entry {
		return Entry{ID: id, Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(id)}}
	}
	compact := func(replaces string, ids ...string) Entry {
		e := Entry{ID: "msg_c", Kind: KindCompaction, Replaces: replaces}
		for _, id := range ids {
			e.Messages = append(e.Messages, msg(id).Message())
		}
		return e
	}
	ids := func(ms []driver.Message) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return strings.Join(out, ",")
	}
	cases := []struct {
		es   []Entry
		want string
	}{
		{[]Entry{msg("a"), msg("b"), msg("c"), compact("b", "b", "s"), msg("d")}, "a,b,s,d"},
		{[]Entry{msg("a"), msg("b"), compact("gone", "s"), msg("d")}, "s,d"},
		{[]Entry{msg("a"), compact("a", "s1"), msg("b"), compact("s1", "s2"), msg("c")}, "s2,c"},
	}
	for i, c := range cases {
		if got := ids(Messages(c.es)); got != c.want {
			t.Errorf("case %d: %s, want %s", i, got, c.want)
		}
	}
}
