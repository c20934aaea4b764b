package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// A fixture is what one door answered one run of a few checks: every HTTP
// exchange in the order the requests arrived. testdata/jsref/ holds the
// answers of the @a2a-js/sdk reference server (testdata/jsref/README.md says
// how they were recorded); a replay server answers the suite from them.
type fixture struct {
	Source    string       `json:"source"`
	Checks    []string     `json:"checks"`
	Exchanges []exchRecord `json:"exchanges"`
}

// exchRecord is one recorded request and the door's answer. Authorization is
// never recorded.
type exchRecord struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	RPC    string          `json:"rpc,omitempty"`  // the JSON-RPC method
	ID     json.RawMessage `json:"id,omitempty"`   // the JSON-RPC request id
	Body   json.RawMessage `json:"body,omitempty"` // the request body when JSON
	Status int             `json:"status"`
	Header http.Header     `json:"header"`
	Answer string          `json:"answer,omitempty"` // a whole body
	Events []eventRecord   `json:"events,omitempty"` // an event stream, block by block
}

// eventRecord is one SSE block as the door wrote it (without the blank line
// that ends it). After is how many requests had reached the door when it
// came: the replay holds it back until as many have reached the replay.
type eventRecord struct {
	After int    `json:"after"`
	Block string `json:"block"`
}

// recordedHeaders are the answer headers a fixture keeps.
var recordedHeaders = []string{"Content-Type", "Www-Authenticate", "Cache-Control"}

// key says which recorded exchanges may answer a request: same method, path
// and JSON-RPC method, taken in recorded order.
func (e *exchRecord) key() string { return e.Method + " " + e.Path + " " + e.RPC }

// rpcOf reads a request body's JSON-RPC method and raw id, if it has them.
func rpcOf(body []byte) (method string, id json.RawMessage) {
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) != nil {
		return "", nil
	}
	_ = json.Unmarshal(req["method"], &method)
	return method, req["id"]
}

// reID rewrites an answer recorded for request id from into one for request
// id to: only where the door echoed the recorded id, so an answer that got
// the id wrong stays wrong.
func reID(answer []byte, from, to json.RawMessage) []byte {
	var top map[string]json.RawMessage
	if from == nil || json.Unmarshal(answer, &top) != nil || !bytes.Equal(top["id"], from) {
		return answer
	}
	return bytes.Replace(answer, []byte(`"id":`+string(from)), []byte(`"id":`+string(to)), 1)
}

// replay serves a fixture until the test ends.
type replay struct {
	t       *testing.T
	mu      sync.Mutex
	queues  map[string][]int // key → recorded exchange indexes not yet used
	arrived int              // requests that reached the replay
	more    chan struct{}    // closed and renewed on each arrival
	fx      *fixture
}

func loadFixture(t *testing.T, name string) *fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "jsref", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx fixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return &fx
}

// serveFixture starts a replay of fx and returns its URL.
func serveFixture(t *testing.T, fx *fixture) string {
	t.Helper()
	r := &replay{t: t, queues: map[string][]int{}, more: make(chan struct{}), fx: fx}
	for i := range fx.Exchanges {
		k := fx.Exchanges[i].key()
		r.queues[k] = append(r.queues[k], i)
	}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	method, id := rpcOf(body)
	k := req.Method + " " + req.URL.Path + " " + method
	r.mu.Lock()
	r.arrived++
	close(r.more)
	r.more = make(chan struct{})
	q := r.queues[k]
	if len(q) == 0 {
		r.mu.Unlock()
		r.t.Errorf("replay: no recorded answer left for %s %s", k, snippet(body))
		http.Error(w, "no recorded answer", http.StatusTeapot)
		return
	}
	e := &r.fx.Exchanges[q[0]]
	r.queues[k] = q[1:]
	r.mu.Unlock()
	for _, h := range recordedHeaders {
		if v := e.Header.Values(h); len(v) > 0 {
			w.Header()[h] = v
		}
	}
	if e.Events == nil {
		w.WriteHeader(e.Status)
		w.Write(reID([]byte(e.Answer), e.ID, id))
		return
	}
	w.WriteHeader(e.Status)
	w.(http.Flusher).Flush()
	for _, ev := range e.Events {
		if !r.waitArrived(req.Context(), ev.After) {
			return
		}
		lines := strings.Split(ev.Block, "\n")
		for i, l := range lines {
			if data, ok := strings.CutPrefix(l, "data: "); ok {
				lines[i] = "data: " + string(reID([]byte(data), e.ID, id))
			}
		}
		io.WriteString(w, strings.Join(lines, "\n")+"\n\n")
		w.(http.Flusher).Flush()
	}
}

// waitArrived blocks until n requests reached the replay, or ctx ends.
func (r *replay) waitArrived(ctx context.Context, n int) bool {
	for {
		r.mu.Lock()
		arrived, more := r.arrived, r.more
		r.mu.Unlock()
		if arrived >= n {
			return true
		}
		select {
		case <-more:
		case <-ctx.Done():
			return false
		}
	}
}

// runSelected runs card.fetch and then the named checks, in suite order.
func runSelected(ctx context.Context, cfg Config, ids ...string) map[string]Result {
	out := map[string]Result{}
	s, err := newSuite(cfg)
	if err != nil {
		out["card.fetch"] = Result{ID: "card.fetch", Status: Fail, Why: err.Error()}
		return out
	}
	for _, c := range checks() {
		if c.id != "card.fetch" && !slices.Contains(ids, c.id) {
			continue
		}
		r := Result{ID: c.id, Title: c.title}
		if s.card == nil && c.id != "card.fetch" {
			r.Status, r.Why = Skip, "no Agent Card"
		} else {
			r.Status, r.Why = s.runOne(ctx, c)
		}
		out[c.id] = r
	}
	return out
}

// recorder forwards every request to a door and records the exchanges.
type recorder struct {
	t        *testing.T
	upstream string
	mu       sync.Mutex
	arrived  int
	fx       fixture
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	rc.mu.Lock()
	rc.arrived++
	i := len(rc.fx.Exchanges)
	method, id := rpcOf(body)
	e := exchRecord{Method: req.Method, Path: req.URL.Path, RPC: method, ID: id}
	if json.Valid(body) {
		e.Body = body
	}
	rc.fx.Exchanges = append(rc.fx.Exchanges, e)
	rc.mu.Unlock()

	out, err := http.NewRequestWithContext(req.Context(), req.Method, rc.upstream+req.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		rc.t.Fatal(err)
	}
	out.Header = req.Header.Clone()
	out.Header.Del("Accept-Encoding") // answers as the door writes them
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		rc.t.Errorf("recorder: %v", err)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	header := http.Header{}
	for _, h := range recordedHeaders {
		if v := resp.Header.Values(h); len(v) > 0 {
			header[h] = v
			w.Header()[h] = v
		}
	}
	w.WriteHeader(resp.StatusCode)
	set := func(edit func(e *exchRecord)) {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		edit(&rc.fx.Exchanges[i])
	}
	set(func(e *exchRecord) { e.Status, e.Header = resp.StatusCode, header })
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		w.Write(b)
		set(func(e *exchRecord) { e.Answer = string(b) })
		return
	}
	set(func(e *exchRecord) { e.Events = []eventRecord{} })
	w.(http.Flusher).Flush()
	br := bufio.NewReader(resp.Body)
	var block []string
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line != "" {
			block = append(block, line)
		}
		if (line == "" || err != nil) && len(block) > 0 {
			text := strings.Join(block, "\n")
			rc.mu.Lock()
			after := rc.arrived
			rc.fx.Exchanges[i].Events = append(rc.fx.Exchanges[i].Events, eventRecord{After: after, Block: text})
			rc.mu.Unlock()
			io.WriteString(w, text+"\n\n")
			w.(http.Flusher).Flush()
			block = nil
		}
		if err != nil {
			return
		}
	}
}

// jsrefRecordings are the fixtures TestRecordJSReference writes: file name →
// checks run. Each needs the reference server as testdata/jsref/README.md
// starts it (MODE=ask, TOKEN=js-secret).
var jsrefRecordings = map[string][]string{
	"rpc.id-echo":    {"rpc.id-echo"},
	"cancel.ended":   {"cancel.ended"},
	"subscribe.live": {"subscribe.live"},
	"auth":           {"auth.missing", "auth.invalid"},
}

// jsrefToken is the reference server's bearer token in the recordings.
const jsrefToken = "js-secret"

// TestRecordJSReference rewrites testdata/jsref/*.json from a running
// reference server: MUR_JSREF_URL=http://127.0.0.1:41299 go test
// ./conformance -run TestRecordJSReference. Skipped without it.
func TestRecordJSReference(t *testing.T) {
	upstream := os.Getenv("MUR_JSREF_URL")
	if upstream == "" {
		t.Skip("MUR_JSREF_URL is not set: the recordings in testdata/jsref/ stand")
	}
	for name, ids := range jsrefRecordings {
		rc := &recorder{t: t, upstream: strings.TrimRight(upstream, "/"),
			fx: fixture{Source: "@a2a-js/sdk 1.3.0, testdata/jsref/server.mjs (MODE=ask, TOKEN=" + jsrefToken + ")", Checks: ids}}
		srv := httptest.NewServer(rc)
		got := runSelected(t.Context(), Config{URL: srv.URL, Token: jsrefToken}, ids...)
		srv.Close()
		for _, id := range ids {
			t.Logf("%s: %s", name, got[id])
		}
		rc.mu.Lock()
		b, err := json.MarshalIndent(rc.fx, "", "  ")
		rc.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "jsref", name+".json"), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// recorded returns the first recorded answer to rpc that contains text, for
// the tests that lean on what the reference server answered.
func recorded(t *testing.T, fx *fixture, rpc, contains string) *exchRecord {
	t.Helper()
	for i := range fx.Exchanges {
		e := &fx.Exchanges[i]
		if e.RPC != rpc {
			continue
		}
		text := e.Answer
		for _, ev := range e.Events {
			text += ev.Block
		}
		if strings.Contains(text, contains) {
			return e
		}
	}
	t.Fatalf("the fixture holds no %s answer with %s: re-record it (testdata/jsref/README.md)", rpc, contains)
	return nil
}
