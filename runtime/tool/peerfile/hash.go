package peerfile

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"sync"
	"time"
)

// A redeem's etag must be known before its first byte is sent, so a file is
// read twice: once to hash, once to send. digests spares the first read for
// a file that has not changed since it was last hashed, keyed by fileID —
// inode, size, mtime and ctime, which every write changes. An entry is only
// kept for a file whose times are older than the hash's start by racyMargin
// (git's "racy clean" rule): a write during or after the hash then gets a
// later ctime, whatever the timestamp granularity, so a changed file never
// matches a kept entry. The etag describes the bytes as they were hashed; a
// file rewritten in place while it is sent is caught by the fetcher's
// etag check (PFILE-4), as it would be without the cache.
type digests struct {
	mu sync.Mutex
	m  map[[2]uint64]digest // (dev, ino) → the last digest
}

type digest struct {
	id  fileID
	sum string
}

const (
	// maxDigests bounds the cache: a capsule shares a handful of files.
	maxDigests = 256
	// racyMargin is far above any filesystem's timestamp granularity.
	racyMargin = time.Second
	// hashBuffer is the read size of a hash pass.
	hashBuffer = 256 << 10
)

// sum returns the SHA-256 of o's bytes, lowercase hex, leaving o.f at its
// start. ok is false when the file changed while it was read.
func (d *digests) sum(o *opened, stat func() (fileID, error)) (sum string, ok bool, err error) {
	k := [2]uint64{o.id.dev, o.id.ino}
	d.mu.Lock()
	e, hit := d.m[k]
	d.mu.Unlock()
	if hit && e.id == o.id {
		return e.sum, true, nil
	}
	start := time.Now()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, io.LimitReader(o.f, o.id.size+1), make([]byte, hashBuffer)); err != nil {
		return "", false, err
	}
	if _, err := o.f.Seek(0, io.SeekStart); err != nil {
		return "", false, err
	}
	after, err := stat()
	if err != nil {
		return "", false, err
	}
	if after != o.id {
		return "", false, nil
	}
	sum = hex.EncodeToString(h.Sum(nil))
	if cut := start.Add(-racyMargin); o.id.mtime.Before(cut) && o.id.ctime.Before(cut) {
		d.mu.Lock()
		if d.m == nil {
			d.m = map[[2]uint64]digest{}
		}
		if len(d.m) >= maxDigests {
			for old := range d.m { // any one: the cache only saves a read
				delete(d.m, old)
				break
			}
		}
		d.m[k] = digest{o.id, sum}
		d.mu.Unlock()
	}
	return sum, true, nil
}
