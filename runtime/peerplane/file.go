package peerplane

import (
	"io"
	"time"
)

// File is what a redeem that passed every check serves (PFILE-5): the door
// writes a 200 with its headers and Size bytes of Body, then calls Done.
type File struct {
	// Body is the open file, read from its start; an *os.File lets the door
	// send it with sendfile.
	Body io.Reader
	// Size is the byte count the door sends (Content-Length).
	Size int64
	// SHA256 is the lowercase hex digest of those bytes: etag "sha256:<hex>".
	SHA256 string
	// HandleID is x-murmur-handle-id.
	HandleID string
	// Generation is x-murmur-generation.
	Generation uint64
	// ModTime is x-murmur-mtime-ms.
	ModTime time.Time
	// Done is called once, when the answer ends: n bytes of Body were
	// written, err is why the rest were not (nil when all were). It closes
	// Body and writes the redeem's record.
	Done func(n int64, err error)
}

// Request is one redeem as the door read it (PFILE-5).
type Request struct {
	// Handle is the request path after /resources/peer/, percent-decoded.
	Handle string
	// Audience is the first x-murmur-audience value exactly as sent;
	// HasAudience says whether the header was present at all.
	Audience    string
	HasAudience bool
}
