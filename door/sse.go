package door

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// heartbeat is the SSE comment written every Config.Heartbeat (SSE-4).
var heartbeat = []byte(":heartbeat\n\n")

// errLagged ends an A2A stream whose reader fell more than 128 events behind
// (SSE-5): the client recovers with GetTask or SubscribeToTask.
func errLagged() error {
	return a2a.InternalError("the stream fell more than 128 events behind and was closed; read the task with GetTask or SubscribeToTask")
}

// sseWriter writes one server-sent event response (SSE-1, SSE-2, SSE-7).
// Each write is bounded by its own deadline; the response as a whole has
// none (DOOR-7). Only the request's goroutine uses it.
type sseWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	id    json.RawMessage
	buf   []byte
	grace time.Time // set at shutdown: every write ends by then
	rest  bool      // HTTP+JSON: each event's data is the StreamResponse itself (A2A §11.7)
	done  func()
}

// openSSE writes the stream's headers and counts the connection (GO-6).
func (s *Server) openSSE(w http.ResponseWriter, id json.RawMessage, kind string) *sseWriter {
	g := s.metrics.sse[kind]
	g.Inc()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), id: id, done: g.Dec}
	_ = sw.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	w.WriteHeader(http.StatusOK)
	_ = sw.rc.Flush()
	return sw
}

// close lifts the write deadline (the connection may serve another request)
// and uncounts the connection.
func (sw *sseWriter) close() {
	_ = sw.rc.SetWriteDeadline(time.Time{})
	sw.done()
}

// shutdown bounds every later write by the shutdown grace (SSE-5).
func (sw *sseWriter) shutdown() { sw.grace = time.Now().Add(shutdownGrace) }

func (sw *sseWriter) write(b []byte) error {
	d := time.Now().Add(writeTimeout)
	if !sw.grace.IsZero() {
		d = sw.grace
	}
	_ = sw.rc.SetWriteDeadline(d)
	if _, err := sw.w.Write(b); err != nil {
		return err
	}
	return sw.rc.Flush()
}

// event writes one JSON-RPC response as a single data line (SSE-2); on an
// HTTP+JSON stream the result alone, or an error as an "error" event whose
// data is its google.rpc.Status (A2A §11.7).
func (sw *sseWriter) event(resp *jsonrpc2.Response) error {
	b := sw.buf[:0]
	switch {
	case !sw.rest:
		b = append(b, "data: "...)
		b = appendResponse(b, sw.id, resp)
	case resp.Error != nil:
		b = append(b, "event: error\ndata: "...)
		b = append(b, restError(resp.Error).Status()...)
	default:
		b = append(b, "data: "...)
		b = append(b, *resp.Result...)
	}
	b = append(b, "\n\n"...)
	sw.buf = b
	return sw.write(b)
}

// frame writes one stream/watch frame: id (numbered frames only), event,
// data, blank line (SSE-7).
func (sw *sseWriter) frame(f a2a.WatchFrame) error {
	b := sw.buf[:0]
	if f.ID > 0 {
		b = append(b, "id: "...)
		b = strconv.AppendUint(b, f.ID, 10)
		b = append(b, '\n')
	}
	b = append(b, "event: "...)
	b = append(b, f.Event...)
	b = append(b, "\ndata: "...)
	b = append(b, f.Data...)
	b = append(b, "\n\n"...)
	sw.buf = b
	return sw.write(b)
}

func (sw *sseWriter) heartbeat() error { return sw.write(heartbeat) }

// sendStreamingMessage answers SendStreamingMessage (METH-SS): every refusal
// is one plain JSON-RPC body before any stream byte; a task refused for room
// is a stream of one REJECTED task event.
func (s *Server) sendStreamingMessage(w http.ResponseWriter, r *http.Request, c *call) {
	sp, err := readSend(a2a.MethodSendStreamingMessage, c.env.params)
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	_, sub, err := s.cfg.Registry.Send(tasktable.SendRequest{Caller: c.caller, Prov: provenance(r), Message: sp.message,
		Subscribe: true, HistoryLength: sp.historyLength})
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	s.stream(w, r, c.env.id, sseSend, sub)
}

// subscribeToTask answers SubscribeToTask (METH-ST): -32001 for an unknown or
// invisible task, -32004 for an ended one, else the task's stream.
func (s *Server) subscribeToTask(w http.ResponseWriter, r *http.Request, c *call) {
	id, _, err := taskID(a2a.MethodSubscribeToTask, c.env.params)
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	sub, err := s.cfg.Registry.Subscribe(c.caller, id)
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	s.stream(w, r, c.env.id, sseSubscribe, sub)
}

// stream writes sub's events until the registry ends it (after a terminal or
// INPUT_REQUIRED status update, SSE-3), the client leaves, or the door shuts
// down — then it writes what it already holds (SSE-5). A stream cut for lag
// ends with one error event (SSE-2, SSE-5). Heartbeats every period from the
// connection's open (SSE-4).
func (s *Server) stream(w http.ResponseWriter, r *http.Request, id json.RawMessage, kind string, sub *tasktable.Subscription) {
	defer sub.Close()
	sw := s.openSSE(w, id, kind)
	sw.rest = exchangeOf(r).rest
	defer sw.close()
	tick := time.NewTicker(s.cfg.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case ev, open := <-sub.Events():
			if !open {
				s.endStream(r, sw, sub)
				return
			}
			if !s.writeEvent(r, sw, ev) {
				return
			}
		case <-tick.C:
			if sw.heartbeat() != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-s.closing.Done():
			sw.shutdown()
			for {
				select {
				case ev, open := <-sub.Events():
					if !open {
						s.endStream(r, sw, sub)
						return
					}
					if !s.writeEvent(r, sw, ev) {
						return
					}
				default:
					return
				}
			}
		}
	}
}

// writeEvent writes one event; false ends the stream: the client is gone,
// or the event could not be encoded, which is answered as the stream's one
// final error event (SSE-2).
func (s *Server) writeEvent(r *http.Request, sw *sseWriter, ev a2a.StreamResponse) bool {
	resp := resultOf(ev)
	if resp.Error != nil {
		exchangeOf(r).rpcError(resp.Error.Code)
		_ = sw.event(resp)
		return false
	}
	return sw.event(resp) == nil
}

// endStream writes the final error event of a stream cut for lag.
func (s *Server) endStream(r *http.Request, sw *sseWriter, sub *tasktable.Subscription) {
	if !sub.Lagged() {
		return
	}
	resp := errorOf(errLagged())
	exchangeOf(r).rpcError(resp.Error.Code)
	_ = sw.event(resp)
}
