package peerfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"time"
)

var (
	errMismatch = errors.New("etag mismatch")        // the bytes received do not hash to the etag
	errTooLarge = errors.New("over max_bytes")       // the body ran past the fetch's bound
	errStalled  = errors.New("the transfer stalled") // no byte within the idle bound
)

// copyBuffer is the size of one read of a fetch: the body is streamed to
// disk through it, never held whole (PFILE-4).
const copyBuffer = 256 << 10

// receive copies body into w while hashing it: exactly size bytes when
// size is known (-1: to EOF), never more than max (errTooLarge past it).
// It returns the byte count and the digest.
func receive(w io.Writer, body io.Reader, size, max int64) (int64, string, error) {
	h := sha256.New()
	limit := max + 1
	if size >= 0 {
		limit = min(size, limit)
	}
	n, err := io.CopyBuffer(io.MultiWriter(w, h), io.LimitReader(body, limit), make([]byte, copyBuffer))
	sum := hex.EncodeToString(h.Sum(nil))
	if err != nil {
		return n, sum, err
	}
	if n > max {
		return n, sum, errTooLarge
	}
	if size >= 0 && n != size {
		return n, sum, io.ErrUnexpectedEOF
	}
	return n, sum, nil
}

// idleReader is a body whose every Read must bring a byte within idle:
// past it, onIdle runs (it cancels the request, so the pending Read
// returns). stop ends the timer.
type idleReader struct {
	r     io.Reader
	idle  time.Duration
	timer *time.Timer
}

func newIdleReader(r io.Reader, idle time.Duration, onIdle func()) *idleReader {
	return &idleReader{r: r, idle: idle, timer: time.AfterFunc(idle, onIdle)}
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.timer.Reset(r.idle)
	}
	return n, err
}

func (r *idleReader) stop() { r.timer.Stop() }
