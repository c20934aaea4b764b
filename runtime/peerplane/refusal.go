package peerplane

import (
	"fmt"
	"net/http"
	"regexp"
	"time"
)

// The route and the headers of the peer plane (tools.md PFILE-4, PFILE-5;
// door.md PEER-1).
const (
	// Path is the route's prefix: GET /resources/peer/<handle>.
	Path = "/resources/peer"
	// HeaderAudience carries the audience the fetching capsule asserts.
	HeaderAudience = "x-murmur-audience"
	// HeaderHandleID names, on a 200, the handle the body was redeemed with.
	HeaderHandleID = "x-murmur-handle-id"
	// HeaderGeneration is, on a 200, the serving runtime's count of tasks
	// that reached a terminal state (fetch-peer-file's "generation").
	HeaderGeneration = "x-murmur-generation"
	// HeaderMTime is, on a 200, the file's modification time in Unix ms.
	HeaderMTime = "x-murmur-mtime-ms"
)

// The refusal codes of the plane (PFILE-5), the "error" member of each
// refusal's body and a redeem record's outcome.
const (
	CodeNoPeerPlane      = "no_peer_plane"
	CodeMalformedHandle  = "malformed_handle"
	CodeMissingAudience  = "missing_audience"
	CodeHandleNotValid   = "handle_not_valid"
	CodeHandleExpired    = "handle_expired"
	CodeNotFound         = "not_found"
	CodeOutsideRoot      = "outside_root"
	CodeSymlinkRefused   = "symlink_refused"
	CodeNotARegularFile  = "not_a_regular_file"
	CodeTooLarge         = "too_large"
	CodeIOError          = "io_error"
	CodeMethodNotAllowed = "method_not_allowed"
)

// Refusal is one answer of the plane that is not a file: its HTTP status,
// code and sentence (PFILE-5). Its body is {"error":"<code>","message":"<text>"}.
// No message names the export root or any host path.
type Refusal struct {
	Status  int
	Code    string
	Message string
}

func (r *Refusal) Error() string { return r.Code + ": " + r.Message }

// The sentences are ours (PFILE-5 fixes statuses and codes only).

// NoPeerPlane answers every request to a capsule without exports.peer_files.
func NoPeerPlane() *Refusal {
	return &Refusal{http.StatusNotFound, CodeNoPeerPlane, "this capsule declares no exports.peer_files; it serves no peer files"}
}

// NoHandle answers GET /resources/peer and /resources/peer/: the plane has
// no listing.
func NoHandle() *Refusal {
	return &Refusal{http.StatusNotFound, CodeNotFound, "name a handle: GET /resources/peer/<handle>; the peer plane lists nothing"}
}

// MethodNotAllowed answers any method but GET; the door adds allow: GET.
func MethodNotAllowed() *Refusal {
	return &Refusal{http.StatusMethodNotAllowed, CodeMethodNotAllowed, "the peer plane answers GET only"}
}

// MalformedHandle is PFILE-5's first check.
func MalformedHandle() *Refusal {
	return &Refusal{http.StatusBadRequest, CodeMalformedHandle, "the handle is not a peer-file handle (mh1.<payload>.<mac>)"}
}

// MissingAudience is the second: no x-murmur-audience, or an empty one.
func MissingAudience() *Refusal {
	return &Refusal{http.StatusBadRequest, CodeMissingAudience, "the request carries no x-murmur-audience header"}
}

// HandleNotValid is the third, one identical answer for every MAC failure:
// a changed payload, another capsule's or an ended session's handle, another
// audience. Splitting them would tell a prober which field to change.
func HandleNotValid() *Refusal {
	return &Refusal{http.StatusForbidden, CodeHandleNotValid, "the handle is not valid for this audience at this capsule"}
}

// HandleExpired is the fourth.
func HandleExpired(exp time.Time) *Refusal {
	return &Refusal{http.StatusGone, CodeHandleExpired, "the handle expired at " + exp.UTC().Format(time.RFC3339)}
}

// NotFound answers a handle whose file is not there (nor, perhaps, the root).
func NotFound() *Refusal {
	return &Refusal{http.StatusNotFound, CodeNotFound, "the file this handle names does not exist"}
}

// OutsideRoot answers a path that, or whose export root itself, no longer
// resolves inside the declared export root.
func OutsideRoot() *Refusal {
	return &Refusal{http.StatusForbidden, CodeOutsideRoot, "the file this handle names resolves outside the export root"}
}

// SymlinkRefused answers a path with a symbolic link below the root, which
// the plane never follows.
func SymlinkRefused() *Refusal {
	return &Refusal{http.StatusForbidden, CodeSymlinkRefused, "the path this handle names passes through a symbolic link, which the peer plane never follows"}
}

// NotARegularFile answers a directory, fifo, socket or device.
func NotARegularFile() *Refusal {
	return &Refusal{http.StatusForbidden, CodeNotARegularFile, "the handle names a directory or another file that is not a regular file"}
}

// TooLarge answers a file over exports.peer_files.max_bytes.
func TooLarge(size, max int64) *Refusal {
	return &Refusal{http.StatusRequestEntityTooLarge, CodeTooLarge,
		fmt.Sprintf("the file is %d bytes, more than exports.peer_files.max_bytes (%d)", size, max)}
}

// IOError answers an open or read that failed for any other reason.
func IOError() *Refusal {
	return &Refusal{http.StatusInternalServerError, CodeIOError, "the file could not be read"}
}

// codeRe is the shape of any code a peer may answer with: a fetcher records
// a peer's code only when it has it (PFILE-6), io_error otherwise.
var codeRe = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// IsCode reports whether s has the shape of a plane code.
func IsCode(s string) bool { return codeRe.MatchString(s) }
