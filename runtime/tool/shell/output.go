package shell

import (
	"io"
	"sync"
)

// output routes a shell command's two streams: to their foreground captures
// until the command moves to the background, and, when it may move there, to
// its combined log in the order read (SHELL-2, BG-2).
type output struct {
	mu       sync.Mutex
	stdout   stream
	stderr   stream
	combined *Work // nil when nothing can move to the background
	detached bool
}

func (o *output) writer(s *stream) io.Writer { return &outputWriter{o: o, s: s} }

// detach stops feeding the foreground captures.
func (o *output) detach() {
	o.mu.Lock()
	o.detached = true
	o.mu.Unlock()
}

type outputWriter struct {
	o *output
	s *stream
}

func (w *outputWriter) Write(p []byte) (int, error) {
	w.o.mu.Lock()
	detached := w.o.detached
	w.o.mu.Unlock()
	if !detached {
		_, _ = w.s.Write(p)
	}
	if w.o.combined != nil {
		w.o.combined.write(p)
	}
	return len(p), nil
}
