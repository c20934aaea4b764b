package door

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// call is one JSON-RPC request past the envelope checks.
type call struct {
	env    envelope
	caller tasktable.Caller
}

// handler answers one method (ORD-1 step 14).
type handler func(s *Server, w http.ResponseWriter, r *http.Request, c *call)

// methodSet is what this door serves (CARD-5) and how.
type methodSet struct {
	served     map[string]handler
	publicDoor bool
	streaming  bool
}

func newMethodSet(a agentcard.Acceptance, authenticated bool) methodSet {
	all := map[string]handler{
		a2a.MethodSendMessage:          (*Server).sendMessage,
		a2a.MethodSendStreamingMessage: (*Server).sendStreamingMessage,
		a2a.MethodSubscribeToTask:      (*Server).subscribeToTask,
		a2a.MethodStreamWatch:          (*Server).streamWatch,
		a2a.MethodGetTask:              (*Server).getTask,
		a2a.MethodListTasks:            (*Server).listTasks,
		a2a.MethodCancelTask:           (*Server).cancelTask,
		a2a.MethodSessionStop:          (*Server).sessionStop,
		a2a.MethodGetExtendedAgentCard: (*Server).getExtendedAgentCard,
	}
	ms := methodSet{served: map[string]handler{}, publicDoor: !authenticated, streaming: a.Streaming()}
	for _, m := range agentcard.Methods(a, authenticated) {
		ms.served[m] = all[m]
	}
	return ms
}

// resolve is ORD-1 step 10: a served method's handler, or CARD-5's answer
// for one that is not — -32003 for the push-config methods, -32004 for
// GetExtendedAgentCard on a public door and for streaming under none,
// -32601 for everything else.
func (ms *methodSet) resolve(method string) (handler, error) {
	if h, ok := ms.served[method]; ok {
		return h, nil
	}
	switch {
	case slices.Contains(a2a.PushNotificationMethods, method):
		return nil, a2a.PushNotificationNotSupported()
	case method == a2a.MethodGetExtendedAgentCard && ms.publicDoor:
		return nil, a2a.UnsupportedOperation("GetExtendedAgentCard is not supported: this door is public and has no extended card", nil)
	case (method == a2a.MethodSendStreamingMessage || method == a2a.MethodSubscribeToTask) && !ms.streaming:
		return nil, a2a.UnsupportedOperation("Streaming is not supported: this capsule accepts no tasks", nil)
	}
	return nil, a2a.MethodNotFound()
}

// serveRPC is POST / past steps 2–3: ORD-1 steps 5 to 14, in order.
func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request) {
	ex := exchangeOf(r)
	// Step 5: a non-empty body within the size limit, in a JSON media type.
	body, held, ok := s.bodyWithin(w, r)
	defer s.bodies.give(held)
	if !ok {
		return
	}
	if len(body) == 0 {
		s.refuse(w, r, notFound)
		return
	}
	// Steps 6 and 7: JSON, one JSON-RPC 2.0 request; a notification runs nothing.
	env, answerID, perr := parseEnvelope(body)
	if ct := r.Header.Get("Content-Type"); !jsonMediaType(ct) {
		if perr == nil {
			answerID = env.id
		}
		if answerID == nil {
			answerID = nullID
		}
		s.answer(w, r, answerID, errorOf(a2a.MediaTypeNotSupported(ct)))
		return
	}
	if perr != nil {
		s.answer(w, r, answerID, errorOf(perr))
		return
	}
	ex.method = s.metrics.method(env.method)
	if env.id == nil {
		ex.outcome = outcomeNotification
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.dispatch(w, r, env)
}

// dispatch runs ORD-1 steps 8 to 14 for one request of either binding: the
// JSON-RPC envelope read, or an HTTP+JSON route's method and params.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, env envelope) {
	ex := exchangeOf(r)
	// Step 8: A2A-Version.
	if err := checkVersion(r); err != nil {
		s.answer(w, r, env.id, errorOf(err))
		return
	}
	// Step 9: completion origin.
	if handled, err := s.checkCompletion(w, r, &env); err != nil {
		s.answer(w, r, env.id, errorOf(err))
		return
	} else if handled {
		return
	}
	// Step 10: method resolution.
	h, err := s.methods.resolve(env.method)
	if err != nil {
		s.answer(w, r, env.id, errorOf(err))
		return
	}
	// Step 11: the method's scope.
	c := &call{env: env}
	if g := ex.grant; g != nil {
		if !g.allows(env.method) {
			s.refuse(w, r, insufficientScope(s.auth.realm, g.credential, env.method))
			return
		}
		c.caller = tasktable.Caller{Credential: g.credential, Member: g.member}
	}
	// Step 12: x-murmur-forget-session on a send (PEER-6).
	if (env.method == a2a.MethodSendMessage || env.method == a2a.MethodSendStreamingMessage) &&
		headerWord(r, a2a.HeaderForgetSession) == "true" {
		msg := diag.RunForgetSessionMessage
		if s.cfg.HarnessSession {
			msg = diag.ForgetSessionUnsupported // THR-5
		}
		s.answer(w, r, env.id, errorOf(a2a.InvalidParams(msg)))
		return
	}
	// Step 13: params must not be an array.
	if env.paramsArray() {
		s.answer(w, r, env.id, errorOf(a2a.InvalidParams(env.method+" params must be an object, not an array")))
		return
	}
	// Step 14: the method.
	h(s, w, r, c)
}

// errOverBudget is readBody's error for a body the budget cannot hold.
var errOverBudget = errors.New("the door's body budget is spent")

// readBody reads the whole body, at most MaxBody+1 bytes, under the
// deadline bound set (DOOR-5), which it lifts once the body is in so that
// streams and blocking calls run on (DOOR-7). A body over smallBody is held
// against the door's budget: a declared Content-Length is taken whole before
// the first byte is read, a chunked body as it grows; held is what was
// taken, for the caller to give back once its call returns. Past the budget
// it stops with errOverBudget, having read no more.
// bodyWithin reads a request body within the size limit and the door's
// body budget, refusing one over either; ok is false once the request has
// been answered. The caller gives held back to the budget.
func (s *Server) bodyWithin(w http.ResponseWriter, r *http.Request) (body []byte, held int64, ok bool) {
	if r.ContentLength > s.cfg.MaxBody {
		s.refuse(w, r, tooLarge)
		return nil, 0, false
	}
	body, held, err := s.readBody(w, r)
	switch {
	case errors.Is(err, errOverBudget):
		s.refuse(w, r, overBodies(s.bodies.max))
		return nil, held, false
	case err != nil:
		// The client left or stalled mid-body: there is no request to
		// answer, and an empty 200 would be a lie. Drop the connection,
		// reading nothing more (the deadline stays in the past).
		s.log.Debug("door could not read a request body", "err", err)
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
		s.bodies.give(held)
		panic(http.ErrAbortHandler)
	case int64(len(body)) > s.cfg.MaxBody:
		s.refuse(w, r, tooLarge)
		return nil, held, false
	}
	return body, held, true
}

func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, held int64, err error) {
	// cover makes the budget hold a buffer of capacity c (above smallBody).
	cover := func(c int64) bool {
		if c <= smallBody || c <= held {
			return true
		}
		if !s.bodies.take(c - held) {
			return false
		}
		held = c
		return true
	}
	limit := s.cfg.MaxBody + 1
	size, share := int64(4<<10), int64(4<<10) // a chunked body's first allowance
	if r.ContentLength >= 0 {
		size = min(r.ContentLength+1, limit) // +1: room for the read that sees EOF
		share = r.ContentLength
	}
	if !cover(share) {
		return nil, held, errOverBudget
	}
	buf := make([]byte, 0, size)
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			next := min(2*int64(cap(buf)), limit) // a chunked body doubles its buffer
			if !cover(next) {
				return nil, held, errOverBudget
			}
			buf = slices.Grow(buf, int(next)-len(buf))
		}
		n, rerr := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, held, rerr
		}
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	return buf, held, nil
}

// jsonMediaType reports whether a Content-Type names application/json or
// application/a2a+json, any parameters aside (door.md DOOR-4).
func jsonMediaType(ct string) bool {
	if ct == a2a.MediaTypeJSON || ct == a2a.MediaTypeA2AJSON { // the usual header, without parsing
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == a2a.MediaTypeJSON || mt == a2a.MediaTypeA2AJSON)
}

// raw is a result that is already JSON.
type raw json.RawMessage

func (r raw) MarshalJSON() ([]byte, error) { return r, nil }
