package conversation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/driver"
)

// benchEntry is a typical message: a few hundred bytes of text.
func benchEntry() Entry {
	return Entry{ID: "msg_0193f2aa00000000000000000000abcd", Role: driver.RoleAssistant,
		Blocks: []driver.Block{driver.TextBlock(strings.Repeat("the model says something useful. ", 10))},
		TaskID: "tsk_0193f2aa00000000000000000000abcd", SessionID: "ses_0193f2aa00000000000000000000abcd", At: "2026-12-04T20:00:00.000Z"}
}

// BenchmarkRawWrite is the baseline: the same line written to a file with
// no encoding, no record.
func BenchmarkRawWrite(b *testing.B) {
	line, _ := json.Marshal(benchEntry())
	line = append(line, '\n')
	f, err := os.Create(filepath.Join(b.TempDir(), "raw"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for b.Loop() {
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppend is one message appended (encode + write), no fsync: the
// cost inside a task.
func BenchmarkAppend(b *testing.B) {
	w, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	e := benchEntry()
	for b.Loop() {
		if err := w.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendSync is one message appended then fsynced: the cost at a
// point the trace fsyncs (a task's first inference, its end).
func BenchmarkAppendSync(b *testing.B) {
	w, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	e := benchEntry()
	for b.Loop() {
		if err := w.Append(e); err != nil {
			b.Fatal(err)
		}
		if err := w.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResume10k reads a 10,000-message record back into driver
// messages, what mur run --resume does before its first request.
func BenchmarkResume10k(b *testing.B) {
	dir := b.TempDir()
	w, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	e := benchEntry()
	for range 10000 {
		if err := w.Append(e); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	path := filepath.Join(dir, File)
	for b.Loop() {
		es, err := Read(path)
		if err != nil || len(es) != 10000 {
			b.Fatalf("Read = %d, %v", len(es), err)
		}
		_ = Messages(es)
	}
}
