package door

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/murmur-go/mur/runtime/peerplane"
)

// PeerFiles is the peer plane GET /resources/peer/<handle> dispatches to
// (tools.md PFILE-5): the runtime satisfies it, the door owns the wire.
// Redeem runs the handle's checks in PFILE-5's order and returns the open
// file, whose Done the door calls once the answer ends; a refusal is a
// *peerplane.Refusal, any other error is answered 500 io_error. It is
// called concurrently, on the requests' goroutines.
type PeerFiles interface {
	Redeem(ctx context.Context, req peerplane.Request) (*peerplane.File, error)
}

// peerChunk is how much of a file is sent under one write deadline: every
// chunk gets writeTimeout, so a reader that keeps reading is never cut and
// one that stops is. io.CopyN over an *os.File keeps sendfile.
const peerChunk = 4 << 20

// peerRoutes is the peer plane's router, mounted at /resources/peer. GET of
// any path below it is ORD-1 step 1 when exports.peer_files is declared —
// no token, even on an authenticated door: the handle is the credential.
// Every other request (any other method; any request without the
// declaration) passes the token and consent checks (steps 2–3) first, then
// gets 405 or no_peer_plane.
func (s *Server) peerRoutes(gate func(http.HandlerFunc) http.HandlerFunc) http.Handler {
	get := s.servePeer
	if s.cfg.PeerFiles == nil {
		get = gate(get)
	}
	r := chi.NewRouter()
	r.Get("/*", get)
	r.MethodNotAllowed(gate(s.servePeer))
	r.NotFound(gate(s.servePeer))
	return r
}

// servePeer answers one request to the plane (PFILE-5): no_peer_plane
// without the declaration, 405 for any method but GET, DOOR-5's 413 for a
// body over the limit (never read), not_found without a handle, else the
// runtime's redeem — a refusal, or the file with its etag and handle id.
func (s *Server) servePeer(w http.ResponseWriter, r *http.Request) {
	exchangeOf(r).method = s.metrics.method(labelPeerFile)
	if s.cfg.PeerFiles == nil {
		s.refusePeer(w, r, peerplane.NoPeerPlane())
		return
	}
	if r.Method != http.MethodGet {
		s.refusePeer(w, r, peerplane.MethodNotAllowed())
		return
	}
	if r.ContentLength > s.cfg.MaxBody {
		s.refuse(w, r, tooLarge)
		return
	}
	handle, _ := strings.CutPrefix(r.URL.Path, peerplane.Path)
	handle = strings.TrimPrefix(handle, "/")
	if handle == "" {
		s.refusePeer(w, r, peerplane.NoHandle())
		return
	}
	req := peerplane.Request{Handle: handle}
	if v := r.Header.Values(peerplane.HeaderAudience); len(v) > 0 {
		req.Audience, req.HasAudience = v[0], true
	}
	f, err := s.cfg.PeerFiles.Redeem(r.Context(), req)
	if err != nil {
		var rf *peerplane.Refusal
		if !errors.As(err, &rf) {
			s.log.Error("peer plane redeem failed", "err", err)
			rf = peerplane.IOError()
		}
		s.refusePeer(w, r, rf)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(f.Size, 10))
	h.Set("Etag", `"sha256:`+f.SHA256+`"`)
	h.Set(peerplane.HeaderHandleID, f.HandleID)
	h.Set(peerplane.HeaderGeneration, strconv.FormatUint(f.Generation, 10))
	h.Set(peerplane.HeaderMTime, strconv.FormatInt(f.ModTime.UnixMilli(), 10))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	n, err := sendFile(w, f.Body, f.Size)
	f.Done(n, err)
}

// sendFile writes size bytes of body, each chunk under its own write
// deadline, and reports how many it wrote.
func sendFile(w http.ResponseWriter, body io.Reader, size int64) (int64, error) {
	rc := http.NewResponseController(w)
	defer func() { _ = rc.SetWriteDeadline(time.Time{}) }() // the connection may serve another request
	var sent int64
	for sent < size {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		n, err := io.CopyN(w, body, min(peerChunk, size-sent))
		sent += n
		if err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// refusePeer answers a plane refusal: its status, {"error","message"}, and
// allow: GET on a 405 (ORD-3's close and drain, like every HTTP refusal).
func (s *Server) refusePeer(w http.ResponseWriter, r *http.Request, rf *peerplane.Refusal) {
	f := refusal{status: rf.Status, code: rf.Code, message: rf.Message}
	if rf.Status == http.StatusMethodNotAllowed {
		f.allow = http.MethodGet
	}
	s.refuse(w, r, f)
}
