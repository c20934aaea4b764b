package manifest

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// ErrTooLarge is ReadBounded's error for a file longer than its bound.
var ErrTooLarge = errors.New("file is over its size bound")

// ReadBounded reads at most max bytes of the file at path, and ErrTooLarge
// when it holds more, without reading the rest (inputs are bounded
// before they are parsed). Opening never blocks, so a FIFO without a writer
// reads as empty; a read that waits (a FIFO, a terminal) ends once ctx does,
// with context.Cause(ctx). Other errors are the os package's.
func ReadBounded(ctx context.Context, path string, max int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Now()); close(fired) })
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if !stop() {
		<-fired
		return nil, context.Cause(ctx)
	}
	switch {
	case err != nil:
		return nil, err
	case len(data) > max:
		return nil, ErrTooLarge
	}
	return data, nil
}
