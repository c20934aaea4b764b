// Package conversation keeps the durable conversation record: every message
// the runtime puts in front of the model, in order, one JSON line each, under
// $MURMUR_HOME/conversations/<record>/<context id>/messages.jsonl. Only the
// runtime writes it; a resume reads it back.
package conversation

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/murmur-go/mur/runtime/atomicfile"
	"github.com/murmur-go/mur/runtime/driver"
)

// File is the record's file name inside its context directory.
const File = "messages.jsonl"

// Store is the `store` of the retention records this package reports.
const Store = "conversations"

// Retention reasons, the `reason` of a `retention` record.
const (
	ReasonMaxMessages = "max_messages"
	ReasonMaxAge      = "max_age"
)

// Entry is one line of the record: the message as the model saw it, the
// task and session that put it there, and when (RFC 3339, UTC, ms). A
// compaction entry (Kind KindCompaction) carries no message of its own: it
// replaces the messages from the one whose id is Replaces to its line with
// Messages, the conversation the model went on from.
type Entry struct {
	ID        string           `json:"id"` // msg_…
	Kind      string           `json:"kind,omitempty"`
	Role      driver.Role      `json:"role,omitempty"`
	Blocks    []driver.Block   `json:"blocks,omitempty"`
	Replaces  string           `json:"replaces,omitempty"`
	Messages  []driver.Message `json:"messages,omitempty"`
	TaskID    string           `json:"task_id"`
	SessionID string           `json:"session_id"`
	At        string           `json:"at"`
}

// KindCompaction marks a compaction entry.
const KindCompaction = "compaction"

// Message is e as the driver takes it.
func (e Entry) Message() driver.Message {
	return driver.Message{ID: e.ID, Role: e.Role, Blocks: e.Blocks}
}

// safeContext reports whether a context id is usable as a directory name
// as it is: 1 to 128 bytes of [A-Za-z0-9._-], the first not '.' or '-'.
// Written out rather than as a regexp, whose 128-fold repetition every
// process would compile at start.
func safeContext(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '.' || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// ContextDirName is the directory a context's record lives in: the context
// id itself when it is a plain name of at most 128 characters
// ([A-Za-z0-9._-], not starting with '.' or '-'), else ctx-sha256-<hex of
// its sha256>, so a caller's id is never used as a path.
func ContextDirName(contextID string) string {
	if safeContext(contextID) {
		return contextID
	}
	h := sha256.Sum256([]byte(contextID))
	return "ctx-sha256-" + hex.EncodeToString(h[:])
}

// RecordDir is $MURMUR_HOME/conversations/<record>.
func RecordDir(home, record string) string {
	return filepath.Join(home, "conversations", record)
}

// ContextDir is $MURMUR_HOME/conversations/<record>/<context dir>.
func ContextDir(home, record, contextID string) string {
	return filepath.Join(RecordDir(home, record), ContextDirName(contextID))
}

// Writer appends to one context's record. It is safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	n    int // entries in the record

	redact func([]byte) []byte // set once before use (Redact); nil = none
}

// Redact has fn rewrite every line before it is written, so that a secret
// the model was shown (a peer-file handle's token) never reaches the
// record on disk. Call it before the first Append.
func (w *Writer) Redact(fn func(line []byte) []byte) { w.redact = fn }

// Open opens (creating, directories 0700, file 0600) the record in dir for
// appending. A cut final line, left by a writer that died mid-line, is cut
// off first, so the next entry starts on a line of its own.
func Open(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, File)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	entries, whole, err := read(f)
	if err == nil {
		err = f.Truncate(whole)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekEnd)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Writer{f: f, path: path, n: len(entries)}, nil
}

// Path is the record's file.
func (w *Writer) Path() string { return w.path }

// Len is the number of entries in the record.
func (w *Writer) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// Append writes each entry as one line, each in a single write.
func (w *Writer) Append(es ...Entry) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range es {
		line, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if w.redact != nil {
			line = w.redact(line)
		}
		if _, err := w.f.Write(append(line, '\n')); err != nil {
			return err
		}
		w.n++
	}
	return nil
}

// Sync fsyncs the record.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.Sync()
}

// Close fsyncs and closes the record.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	serr := w.f.Sync()
	if err := w.f.Close(); err != nil {
		return err
	}
	return serr
}

// Read reads the record at path (a context directory's messages.jsonl).
// A final line without its newline — a write cut by a crash — is skipped;
// a malformed whole line is an error. A missing file is an empty record.
func Read(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	es, _, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return es, nil
}

// read reads whole lines from r's start; whole is the byte length they span.
func read(r io.ReadSeeker) (es []Entry, whole int64, err error) {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, 0, err
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return es, whole, nil // a cut final line (or none) is skipped
		}
		if err != nil {
			return nil, 0, err
		}
		whole += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, 0, fmt.Errorf("line %d: %w", lineNo, err)
		}
		es = append(es, e)
	}
}

// Messages is the conversation es leaves, as the driver takes it: each
// message in order, a compaction entry replacing the messages from the one
// it names (all of them when that one is not there) with its own.
func Messages(es []Entry) []driver.Message {
	out := make([]driver.Message, 0, len(es))
	for _, e := range es {
		if e.Kind != KindCompaction {
			out = append(out, e.Message())
			continue
		}
		from := 0
		for i, m := range out {
			if m.ID == e.Replaces {
				from = i
				break
			}
		}
		out = append(out[:from], e.Messages...)
	}
	return out
}

// TrimFront keeps the newest max entries of the record at path, replacing
// the file atomically, and returns the ids of the entries it dropped,
// oldest first; nothing when the record holds max or fewer.
func TrimFront(path string, max int) ([]string, error) {
	es, err := Read(path)
	if err != nil || len(es) <= max {
		return nil, err
	}
	cut := len(es) - max
	var buf bytes.Buffer
	for _, e := range es[cut:] {
		line, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o600); err != nil {
		return nil, err
	}
	removed := make([]string, cut)
	for i, e := range es[:cut] {
		removed[i] = e.ID
	}
	return removed, nil
}

// DropOlder removes every context directory of the record directory dir
// whose record was last written before cutoff, except keep (a context
// directory name), and returns the removed directory names, sorted. A
// directory without a record is judged by its own modification time.
func DropOlder(dir string, cutoff time.Time, keep string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, d := range ents {
		if !d.IsDir() || d.Name() == keep {
			continue
		}
		p := filepath.Join(dir, d.Name())
		st, err := os.Stat(filepath.Join(p, File))
		if errors.Is(err, fs.ErrNotExist) {
			st, err = os.Stat(p)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !st.ModTime().Before(cutoff) {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, d.Name())
	}
	sort.Strings(removed)
	return removed, errors.Join(errs...)
}

// Info describes one record on disk.
type Info struct {
	Store    string    // the record store: context.record_store
	Context  string    // the context directory's name
	Messages int       // whole entries
	Written  time.Time // the record file's modification time
}

// List returns every record under $MURMUR_HOME/conversations, by store then
// context. A context directory without a record (a harness's session map
// alone) is not listed.
func List(home string) ([]Info, error) {
	root := filepath.Join(home, "conversations")
	stores, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, s := range stores {
		if !s.IsDir() {
			continue
		}
		ctxs, err := os.ReadDir(filepath.Join(root, s.Name()))
		if err != nil {
			return nil, err
		}
		for _, c := range ctxs {
			path := filepath.Join(root, s.Name(), c.Name(), File)
			st, err := os.Stat(path)
			if err != nil || !c.IsDir() {
				continue
			}
			es, err := Read(path)
			if err != nil {
				return nil, err
			}
			out = append(out, Info{Store: s.Name(), Context: c.Name(), Messages: len(es), Written: st.ModTime()})
		}
	}
	return out, nil
}
