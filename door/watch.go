package door

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// connectionAck is the first frame of every stream/watch connection
// (SSE-6): its conversation_mode is threaded only where the session keeps
// conversations (Config.Threaded; under http threaded is ignored, MAN-2).
func connectionAck(threaded bool) a2a.WatchFrame {
	ack := a2a.ConnectionAckFrame{Role: "observer", ConversationMode: "stateless"}
	if threaded {
		ack.ConversationMode = "threaded"
	}
	b, _ := a2a.Marshal(ack) // two strings always encode
	return a2a.WatchFrame{Event: a2a.FrameConnectionAck, Data: b}
}

// lastEventID reads Last-Event-ID: a number, else 0 (SSE-9, PEER-1).
func lastEventID(r *http.Request) uint64 {
	n, err := strconv.ParseUint(strings.ToLower(strings.TrimSpace(r.Header.Get(a2a.HeaderLastEventID))), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// streamWatch answers stream/watch (SSE-6..9): connection-ack, the replay,
// then live frames of every task and heartbeats, until capsule-closed or the
// client leaves; at shutdown it writes the frames it already holds. Params
// are ignored.
func (s *Server) streamWatch(w http.ResponseWriter, r *http.Request, c *call) {
	wt := s.cfg.Registry.Watch(lastEventID(r))
	defer wt.Close()
	sw := s.openSSE(w, c.env.id, sseWatch)
	defer sw.close()
	if sw.frame(connectionAck(s.cfg.Threaded)) != nil {
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.closing, cancel)
	defer stop()
	beat := time.Now().Add(s.cfg.Heartbeat)
	for {
		fctx, fcancel := context.WithDeadline(ctx, beat)
		f, err := wt.Next(fctx)
		fcancel()
		switch {
		case err == nil:
			if sw.frame(f) != nil || f.Event == a2a.FrameCapsuleClosed {
				return
			}
		case errors.Is(err, io.EOF):
			return
		case ctx.Err() != nil:
			if s.closing.Err() != nil && r.Context().Err() == nil {
				s.flushWatch(sw, wt)
			}
			return
		default: // the heartbeat is due
			if sw.heartbeat() != nil {
				return
			}
			beat = beat.Add(s.cfg.Heartbeat)
		}
	}
}

// flushWatch writes the frames the watcher already holds, within the
// shutdown grace (SSE-5).
func (s *Server) flushWatch(sw *sseWriter, wt interface {
	Next(context.Context) (a2a.WatchFrame, error)
}) {
	sw.shutdown()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for {
		f, err := wt.Next(done)
		if err != nil || sw.frame(f) != nil || f.Event == a2a.FrameCapsuleClosed {
			return
		}
	}
}
