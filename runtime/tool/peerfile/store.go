package peerfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
)

// errMismatch: the bytes received do not hash to the etag.
var errMismatch = errors.New("etag mismatch")

// copyBuffer is the size of one read of a fetch: the body is streamed to
// disk through it, never held whole (PFILE-4).
const copyBuffer = 256 << 10

// receive copies body into w while hashing it: exactly size bytes when
// size is known (-1: to EOF). It returns the byte count and the digest.
func receive(w io.Writer, body io.Reader, size int64) (int64, string, error) {
	h := sha256.New()
	src := body
	if size >= 0 {
		src = io.LimitReader(body, size)
	}
	n, err := io.CopyBuffer(io.MultiWriter(w, h), src, make([]byte, copyBuffer))
	sum := hex.EncodeToString(h.Sum(nil))
	if err != nil {
		return n, sum, err
	}
	if size >= 0 && n != size {
		return n, sum, io.ErrUnexpectedEOF
	}
	return n, sum, nil
}
