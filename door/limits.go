package door

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Defaults of the door's load bounds (documented in docs/door.md).
const (
	// DefaultMaxConnections is how many connections a door holds open at
	// once (`mur run --max-connections`): room for every member of the
	// largest roster (256) with a few idle keep-alive connections each.
	DefaultMaxConnections = 1024
	// DefaultBodyBytes is how many bytes of request bodies larger than
	// smallBody the door holds at once, whole bodies counted from their
	// first byte until their call returns: four bodies of DOOR-5's 8 MiB.
	DefaultBodyBytes = 4 * DefaultMaxBody
	// DefaultBodyTimeout is how long a request may take to send its body,
	// whatever its framing, counted from the end of its headers.
	DefaultBodyTimeout = 30 * time.Second
)

// smallBody is the size below which a body needs no share of the budget:
// the connection cap bounds those (at most MaxConnections × 64 KiB).
const smallBody = 64 << 10

// retryAfter is the Retry-After of a 503, in seconds.
const retryAfter = 1

const codeOverloaded = "overloaded"

// overConnections answers every request on a connection past the cap.
func overConnections(max int) refusal {
	return refusal{status: http.StatusServiceUnavailable, code: codeOverloaded, retry: true,
		message: "this door is serving its limit of " + strconv.Itoa(max) + " connections; retry later"}
}

// overBodies answers a body that does not fit in the budget.
func overBodies(max int64) refusal {
	return refusal{status: http.StatusServiceUnavailable, code: codeOverloaded, retry: true,
		message: "this door is holding its limit of " + strconv.FormatInt(max, 10) + " bytes of request bodies; retry later"}
}

// conns counts the door's open connections (http.Server's ConnContext and
// ConnState hooks): each accepted connection counts until it is closed or
// hijacked. A connection accepted past the cap is marked, and every request
// on it is answered 503 and the connection closed.
type conns struct {
	max  int64
	open atomic.Int64
}

type overCapKey struct{}

func (overCapKey) String() string { return "door connection past the cap" }

func (c *conns) connContext(ctx context.Context, _ net.Conn) context.Context {
	if c.open.Add(1) > c.max {
		return context.WithValue(ctx, overCapKey{}, true)
	}
	return ctx
}

func (c *conns) connState(_ net.Conn, st http.ConnState) {
	if st == http.StateClosed || st == http.StateHijacked {
		c.open.Add(-1)
	}
}

func pastCap(r *http.Request) bool { v, _ := r.Context().Value(overCapKey{}).(bool); return v }

// budget is the door's allowance of body bytes (DefaultBodyBytes): take
// either gets n bytes at once or none. Safe for concurrent use.
type budget struct {
	max  int64
	used atomic.Int64
}

func (b *budget) take(n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

func (b *budget) give(n int64) { b.used.Add(-n) }

// bound is the door's outermost guard, before ORD-1: a connection past the
// cap is refused 503 at once (an HTTP refusal, ORD-3), and every request's
// body must arrive within BodyTimeout of its headers, whatever its framing
// and whoever reads it — the handler, or net/http discarding what a handler
// left unread.
func (s *Server) bound(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pastCap(r) {
			s.refuse(w, r, overConnections(int(s.conns.max)))
			return
		}
		setReadDeadline(w, time.Now().Add(s.cfg.BodyTimeout))
		next.ServeHTTP(w, r)
	})
}

// readDeadliner is net/http's own response writer, as ResponseController
// finds it.
type readDeadliner interface{ SetReadDeadline(time.Time) error }

// setReadDeadline sets the request's read deadline without allocating when w
// is net/http's writer, as it is at the door's outermost guard; any other
// writer goes through a ResponseController.
func setReadDeadline(w http.ResponseWriter, t time.Time) {
	if d, ok := w.(readDeadliner); ok {
		_ = d.SetReadDeadline(t)
		return
	}
	_ = http.NewResponseController(w).SetReadDeadline(t)
}
