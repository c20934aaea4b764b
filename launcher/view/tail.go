package view

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
)

// maxLine bounds one trace line the view will hold while it is being
// written: a longer one is skipped whole (a tool_call's captured output is
// cut at 64 KiB, so real lines stay far below this).
const maxLine = 8 << 20

// tail reads a trace.jsonl that may still be growing: each call to next
// returns the complete lines written since the last call. A line without its
// newline yet is kept back until it has one (TRACE-1: one write per line,
// "\n"-terminated). Not safe for concurrent use; its owner is the poller.
type tail struct {
	path    string
	off     int64  // offset of the first byte not yet returned
	partial []byte // bytes after off read so far, holding no newline
	skip    bool   // discarding an over-long line up to its newline
	bad     int    // lines that did not decode, skipped
}

// next reads what was appended since the last call and decodes every
// complete line, in file order. A missing file is no error (the session has
// not made it yet): it returns nothing.
func (t *tail) next() ([]*record, error) {
	f, err := os.Open(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	start := t.off + int64(len(t.partial))
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return nil, err
	}
	var out []*record
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			out = t.feed(buf[:n], out)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// feed splits chunk into lines after what partial holds, appending decoded
// records to out.
func (t *tail) feed(chunk []byte, out []*record) []*record {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			if !t.skip {
				t.partial = append(t.partial, chunk...)
				if len(t.partial) > maxLine {
					t.skip = true
					t.off += int64(len(t.partial))
					t.partial = nil
				}
			} else {
				t.off += int64(len(chunk))
			}
			return out
		}
		line := chunk[:i]
		chunk = chunk[i+1:]
		if t.skip {
			t.skip = false
			t.off += int64(len(line)) + 1
			t.bad++
			continue
		}
		if len(t.partial) > 0 {
			line = append(t.partial, line...)
			t.partial = nil
		}
		off := t.off
		t.off += int64(len(line)) + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r, err := decodeRecord(line, off)
		if err != nil {
			t.bad++
			continue
		}
		out = append(out, r)
	}
	return out
}

// readLine reads the line of n bytes at off from path (a timeline's records,
// read back when asked for rather than held in memory).
func readLine(f *os.File, off int64, n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}
