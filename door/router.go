package door

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/peerplane"
)

// routes builds the router (GO-2): the card, /metrics and, when
// exports.peer_files is declared, GET /resources/peer/<handle> are served
// before the token and consent checks (ORD-1 step 1); POST / and everything chi
// does not route pass them first (steps 2–3), then get their answer —
// anything not routed is a plain empty 404, never chi's 405 (DOOR-4).
func (s *Server) routes() *chi.Mux {
	r := chi.NewRouter()
	r.Use(s.observe, s.bound)
	r.Get(a2a.WellKnownCardPath, s.serveCard)
	r.Method(http.MethodGet, "/metrics", s.serveMetrics())
	gate := func(h http.HandlerFunc) http.HandlerFunc { return s.authenticate(s.consent(h)).ServeHTTP }
	r.Mount(peerplane.Path, s.peerRoutes(gate))
	r.Post("/", gate(s.serveRPC))
	s.restRoutes(r, gate)
	r.NotFound(gate(s.serveNotFound))
	r.MethodNotAllowed(gate(s.serveNotFound))
	return r
}

// exchange is one request's bookkeeping: who was admitted, and what the
// metrics say about it.
type exchange struct {
	grant   *grant // nil on a public door
	rest    bool   // an HTTP+JSON route: answers are its bodies and google.rpc.Status
	method  int    // metrics label index
	outcome string
	m       *metrics
}

type exchangeKey struct{}

func (exchangeKey) String() string { return "door exchange" }

// exchangeOf returns the request's exchange; one the door did not create
// (a test calling a handler directly) is a throwaway.
func exchangeOf(r *http.Request) *exchange {
	if ex, ok := r.Context().Value(exchangeKey{}).(*exchange); ok {
		return ex
	}
	return &exchange{}
}

func (ex *exchange) refused(code string) {
	ex.outcome = outcomeRefused
	if ex.m != nil {
		ex.m.refusals.WithLabelValues(code).Inc()
	}
}

func (ex *exchange) rpcError(code int64) {
	ex.outcome = outcomeError
	if ex.m != nil {
		ex.m.refusals.WithLabelValues(strconv.FormatInt(code, 10)).Inc()
	}
}

// observe counts and times every request. A panic is logged and the
// connection aborted (a malformed request must never panic the door; this
// guards the door's own bugs); http.ErrAbortHandler, net/http's way to
// abort a response on purpose, passes through unlogged.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := s.metrics
		ex := &exchange{method: m.method(labelNone), outcome: outcomeOK, m: m}
		m.inflight.Inc()
		start := time.Now()
		defer func() {
			if v := recover(); v != nil {
				m.inflight.Dec()
				if v != http.ErrAbortHandler { //nolint:errorlint // the sentinel is compared as net/http does
					s.log.Error("door handler panicked", "method", methodLabels[ex.method], "err", v)
				}
				panic(http.ErrAbortHandler)
			}
			m.requests[ex.method][outcomeIndex(ex.outcome)].Inc()
			m.durations[ex.method].Observe(time.Since(start).Seconds())
			// Last: a request that has left the gauge has been counted, so a
			// scrape that sees it gone sees its count (TestMetrics_GO6).
			m.inflight.Dec()
		}()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
	})
}

// cardCacheControl lets a client keep the card but revalidate it each time
// (its ETag makes that a 304): the card names the session, and a door that
// starts later on the same port serves
// another. no-cache is DOOR-3's; max-age=0 is
// the max-age directive A2A §8.6.1 asks for, at the card's update frequency.
const cardCacheControl = "no-cache, max-age=0"

// serveCard answers the public card (DOOR-3, CARD-*): no token, no version.
func (s *Server) serveCard(w http.ResponseWriter, r *http.Request) {
	ex := exchangeOf(r)
	ex.method = s.metrics.method(labelCard)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", cardCacheControl)
	h.Set("ETag", s.etag)
	if r.Header.Get("If-None-Match") == s.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(s.cards.Public)))
	_, _ = w.Write(s.cards.Public)
}

func etagOf(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// serveMetrics is the Prometheus text of this door's own registry (GO-6).
func (s *Server) serveMetrics() http.Handler {
	h := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		exchangeOf(r).method = s.metrics.method(labelMetrics)
		h.ServeHTTP(w, r)
	})
}

// serveNotFound is DOOR-4's empty 404, reached only past steps 2–3.
func (s *Server) serveNotFound(w http.ResponseWriter, r *http.Request) {
	s.refuse(w, r, notFound)
}
