package door

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// HTTP refusal codes, the "error" member of AUTH-7/PEER-2 bodies; not_found
// and too_large name the empty-bodied DOOR-4/DOOR-5 answers in metrics.
const (
	codeUnauthenticated   = "unauthenticated"
	codeInvalidToken      = "invalid_token"
	codeNotPermitted      = "not_permitted"
	codeInsufficientScope = "insufficient_scope"
	codePeerNotAccepted   = "peer_not_accepted"
	codeNotFound          = "not_found"
	codeTooLarge          = "too_large"
)

// The refusal sentences (AUTH-7, PEER-2).
const (
	msgUnauthenticated = "this door requires Authorization: Bearer <token>"
	msgInvalidToken    = "the Authorization header does not carry a token this door accepts"
	msgPeerNotAccepted = "this capsule does not accept tasks from peer capsules"
)

// ORD-3: after an HTTP refusal the door reads at most this much unread body,
// for at most drainTime, so the client reads the refusal rather than a reset.
const (
	drainLimit = 64 << 10
	drainTime  = 500 * time.Millisecond
)

// refusal is one HTTP refusal: status, optional www-authenticate, optional
// JSON body {"error","message"}.
type refusal struct {
	status  int
	code    string
	message string // "" for the empty-bodied 404 and 413
	www     string // www-authenticate value; "" for none
	retry   bool   // a 503: Retry-After names when to come back
	allow   string // a 405's allow value; "" for none
}

func unauthenticated(realm string) refusal {
	return refusal{status: http.StatusUnauthorized, code: codeUnauthenticated, message: msgUnauthenticated, www: `Bearer realm="` + realm + `"`}
}

func invalidToken(realm string) refusal {
	return refusal{status: http.StatusUnauthorized, code: codeInvalidToken, message: msgInvalidToken,
		www: `Bearer realm="` + realm + `", error="invalid_token"`}
}

func notPermitted(realm, from string) refusal {
	return refusal{status: http.StatusForbidden, code: codeNotPermitted, message: "member '" + from + "' may not call this door",
		www: `Bearer realm="` + realm + `", error="insufficient_scope"`}
}

func insufficientScope(realm, credential, scope string) refusal {
	return refusal{status: http.StatusForbidden, code: codeInsufficientScope, message: "credential '" + credential + "' does not reach " + scope,
		www: `Bearer realm="` + realm + `", error="insufficient_scope", scope="` + scope + `"`}
}

// peerNotAccepted is byte-identical whatever the request (PEER-2).
var peerNotAccepted = refusal{status: http.StatusForbidden, code: codePeerNotAccepted, message: msgPeerNotAccepted}

var (
	notFound = refusal{status: http.StatusNotFound, code: codeNotFound}
	tooLarge = refusal{status: http.StatusRequestEntityTooLarge, code: codeTooLarge}
)

// body renders {"error":"<code>","message":"<sentence>"} (AUTH-7).
func (f refusal) body() []byte {
	if f.message == "" {
		return nil
	}
	b, _ := a2a.Marshal(struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}{f.code, f.message}) // two strings always marshal
	return b
}

// refuse answers f, then drains what is left of the body and closes the
// connection (ORD-3). The answer goes first: a client that waits for "100
// Continue" gets the refusal, not an invitation to upload a body the door
// will not read (ORD-1 step 2 reads no body). It never echoes a token or the
// request.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, f refusal) {
	exchangeOf(r).refused(f.code)
	h := w.Header()
	h.Set("Connection", "close")
	if f.www != "" {
		h.Set("Www-Authenticate", f.www)
	}
	if f.retry {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	if f.allow != "" {
		h.Set("Allow", f.allow)
	}
	b := f.body()
	if b != nil {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(f.status)
	_, _ = w.Write(b)
	_ = http.NewResponseController(w).Flush()
	drain(w, r)
}

// drain reads up to drainLimit of unread body within drainTime (ORD-3).
func drain(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(drainTime))
	_, _ = io.CopyN(io.Discard, r.Body, drainLimit)
}
