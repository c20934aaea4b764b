package launcher

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// tailLines is how many stderr lines a failure's tail shows (READY-4).
const tailLines = 10

// maxOutputLine bounds one forwarded line; a longer one is cut into pieces.
const maxOutputLine = 64 << 10

// syncWriter serializes whole lines onto the launcher's stderr, which every
// peer's forwarder and the launcher itself share (LIFE-6).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// line writes prefix, s and a newline as one write; errors are dropped: a
// closed stream never stops the launcher.
func (s *syncWriter) line(prefix, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = io.WriteString(s.w, prefix+text+"\n")
}

// write writes b as is.
func (s *syncWriter) write(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.w.Write(b)
}

// tail keeps a peer's last stderr lines (READY-4's tail).
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(l string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, l)
	if len(t.lines) > tailLines {
		t.lines = t.lines[len(t.lines)-tailLines:]
	}
}

func (t *tail) get() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// eachLine calls fn for every line r yields until EOF or an error; a line
// longer than maxOutputLine is handed over in pieces, a last line without a
// newline as is.
func eachLine(r io.Reader, fn func(line string)) {
	br := bufio.NewReaderSize(r, 4096)
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) && len(buf) < maxOutputLine {
			continue
		}
		if len(buf) > 0 {
			fn(string(bytes.TrimSuffix(buf, []byte("\n"))))
			buf = buf[:0]
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}
