package shell

import (
	"fmt"
	"os"
	"sync"
)

// TailBytes is how much of a long stream a result shows (SHELL-3, BG-2).
const TailBytes = 16 << 10

// stream captures one foreground output stream (SHELL-3): it keeps the whole
// stream in memory up to TailBytes; past that it spills everything to a log
// file (logs/shell-<k>.log, k from the session's counter) and keeps only the
// last TailBytes in memory. Safe for concurrent use.
type stream struct {
	mu      sync.Mutex
	buf     []byte // everything while small, else the last TailBytes
	total   int64
	spill   func() (*os.File, error) // opens the log on first overflow
	log     *os.File
	logPath string
	logErr  error
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += int64(len(p))
	if s.log == nil && s.logErr == nil && len(s.buf)+len(p) > TailBytes && s.spill != nil {
		s.log, s.logErr = s.spill()
		if s.log != nil {
			s.logPath = s.log.Name()
			if _, err := s.log.Write(s.buf); err != nil {
				s.logErr = err
			}
		}
	}
	if s.log != nil {
		if _, err := s.log.Write(p); err != nil && s.logErr == nil {
			s.logErr = err
		}
	}
	s.buf = append(s.buf, p...)
	if len(s.buf) > TailBytes {
		s.buf = append(s.buf[:0], s.buf[len(s.buf)-TailBytes:]...)
	}
	return len(p), nil
}

// close closes the spill log, if any.
func (s *stream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log != nil {
		s.log.Close()
	}
}

// text is the stream as a result shows it (SHELL-3): its last TailBytes after
// "[<n> earlier bytes are in <log>]" when longer, one trailing newline dropped.
func (s *stream) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	body := string(s.buf)
	if n := len(body); n > 0 && body[n-1] == '\n' {
		body = body[:n-1]
	}
	if s.total <= TailBytes {
		return body
	}
	where := s.logPath
	if where == "" {
		where = "a log that could not be written"
	}
	return fmt.Sprintf("[%d earlier bytes are in %s]\n%s", s.total-int64(len(s.buf)), where, body)
}

func (s *stream) bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}
