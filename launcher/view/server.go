package view

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"path"
	"strconv"
	"time"
)

// heartbeat is how often an idle event stream writes a comment, so a
// proxy-less loopback connection is still seen to be alive (door.md SSE-4's
// period).
const heartbeat = 15 * time.Second

// NewToken returns a fresh random view token: 24 random bytes, base64url.
func NewToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// handler serves the page, its assets, its event stream and its timelines,
// each only to a request carrying the token, as ?token= or the cookie the
// page's first load sets. Read-only: GET and HEAD only.
type handler struct {
	m      *model
	token  string
	port   int
	assets fs.FS
	mux    *http.ServeMux
}

func newHandler(m *model, token string, port int) *handler {
	h := &handler{m: m, token: token, port: port, assets: assetFS()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.page)
	mux.HandleFunc("GET /assets/{file}", h.asset)
	mux.HandleFunc("GET /api/events", h.events)
	mux.HandleFunc("GET /api/state", h.state)
	mux.HandleFunc("GET /api/timeline", h.timeline)
	h.mux = mux
	return h
}

// cookieName is per port: cookies for 127.0.0.1 are shared by every port,
// and two views may run at once.
func (h *handler) cookieName() string { return "mur_view_" + strconv.Itoa(h.port) }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer") // the URL carries the token
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "this view is read-only", http.StatusMethodNotAllowed)
		return
	}
	if !h.hostOK(r.Host) {
		http.Error(w, "this view answers only at 127.0.0.1:"+strconv.Itoa(h.port), http.StatusForbidden)
		return
	}
	fromQuery := h.match(r.URL.Query().Get("token"))
	if !fromQuery {
		c, err := r.Cookie(h.cookieName())
		if err != nil || !h.match(c.Value) {
			http.Error(w, "this view needs the token in the URL mur view printed", http.StatusForbidden)
			return
		}
	}
	if fromQuery {
		http.SetCookie(w, &http.Cookie{Name: h.cookieName(), Value: h.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
	h.mux.ServeHTTP(w, r)
}

func (h *handler) match(tok string) bool {
	return tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(h.token)) == 1
}

// hostOK refuses a Host naming anything but this loopback listener, so a
// page elsewhere cannot reach the view through a rebound DNS name.
func (h *handler) hostOK(host string) bool {
	name, port, err := net.SplitHostPort(host)
	if err != nil || port != strconv.Itoa(h.port) {
		return false
	}
	return name == "127.0.0.1" || name == "localhost"
}

func (h *handler) page(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(h.assets, "index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}

func (h *handler) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := fs.ReadFile(h.assets, name)
	if err != nil || name == "index.html" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(name))) // .js and .css are built into package mime
	_, _ = w.Write(b)
}

func (h *handler) state(w http.ResponseWriter, r *http.Request) {
	h.m.mu.Lock()
	s := h.m.snapshot()
	h.m.mu.Unlock()
	writeJSON(w, s)
}

func (h *handler) timeline(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tl, err := h.m.timeline(q.Get("member"), q.Get("task"))
	if errors.Is(err, errNoTask) {
		http.Error(w, "no task "+q.Get("task")+" of member "+q.Get("member"), http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, tl)
}

// events is the page's event stream: the snapshot, then every change, as
// server-sent events, with a heartbeat comment while idle. A stream that
// falls too far behind is ended; the page's EventSource reconnects and
// starts from a new snapshot.
func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Connection", "keep-alive")
	snap, s := h.m.subscribe()
	defer h.m.unsubscribe(s)
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(snap); err != nil {
		return
	}
	fl.Flush()
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.gone:
			return
		case <-tick.C:
			if _, err := w.Write([]byte(":heartbeat\n\n")); err != nil {
				return
			}
		case b := <-s.ch:
			if _, err := w.Write(b); err != nil {
				return
			}
			for more := true; more; { // write what is queued, then flush once
				select {
				case b := <-s.ch:
					if _, err := w.Write(b); err != nil {
						return
					}
				default:
					more = false
				}
			}
		}
		fl.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
