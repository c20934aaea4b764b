package door

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/murmur-go/mur/a2a"
)

// The HTTP+JSON binding's routes (A2A §11.3), served beside POST / on the
// same port. SubscribeToTask is answered for GET and POST: the specification
// text says POST, the proto's HTTP annotation GET.
const (
	RouteSendMessage          = "/message:send"
	RouteSendStreamingMessage = "/message:stream"
	RouteTasks                = "/tasks"
	RouteTask                 = "/tasks/{id}"
	RouteCancelTask           = "/tasks/{id}:cancel"
	RouteSubscribeToTask      = "/tasks/{id}:subscribe"
	RouteExtendedAgentCard    = "/extendedAgentCard"
	RoutePushConfigs          = "/tasks/{id}/pushNotificationConfigs"
	RoutePushConfig           = "/tasks/{id}/pushNotificationConfigs/{configId}"
)

// restRoute is one HTTP+JSON route: the method it stands for and how its
// params are read from the path, the query and the body.
type restRoute struct {
	method string
	params func(r *http.Request, body []byte) (json.RawMessage, error)
}

// restRoutes mounts the HTTP+JSON binding on r behind gate (ORD-1 steps
// 2–3, as POST / is).
func (s *Server) restRoutes(r chi.Router, gate func(http.HandlerFunc) http.HandlerFunc) {
	body := func(_ *http.Request, b []byte) (json.RawMessage, error) { return b, nil }
	none := func(*http.Request, []byte) (json.RawMessage, error) { return nil, nil }
	r.Post(RouteSendMessage, gate(s.serveREST(restRoute{a2a.MethodSendMessage, body})))
	r.Post(RouteSendStreamingMessage, gate(s.serveREST(restRoute{a2a.MethodSendStreamingMessage, body})))
	r.Get(RouteTasks, gate(s.serveREST(restRoute{a2a.MethodListTasks, queryParams(nil)})))
	r.Get(RouteTask, gate(s.serveREST(restRoute{a2a.MethodGetTask, queryParams(pathID)})))
	r.Post(RouteCancelTask, gate(s.serveREST(restRoute{a2a.MethodCancelTask, idOnly})))
	sub := gate(s.serveREST(restRoute{a2a.MethodSubscribeToTask, idOnly}))
	r.Get(RouteSubscribeToTask, sub)
	r.Post(RouteSubscribeToTask, sub)
	r.Get(RouteExtendedAgentCard, gate(s.serveREST(restRoute{a2a.MethodGetExtendedAgentCard, none})))
	// Push-notification configs are not served: each is -32003's 400 (METH-PN-1).
	r.Post(RoutePushConfigs, gate(s.serveREST(restRoute{a2a.MethodCreateTaskPushNotificationConfig, idOnly})))
	r.Get(RoutePushConfigs, gate(s.serveREST(restRoute{a2a.MethodListTaskPushNotificationConfigs, idOnly})))
	r.Get(RoutePushConfig, gate(s.serveREST(restRoute{a2a.MethodGetTaskPushNotificationConfig, idOnly})))
	r.Delete(RoutePushConfig, gate(s.serveREST(restRoute{a2a.MethodDeleteTaskPushNotificationConfig, idOnly})))
}

// pathID is the {id} of a task route.
func pathID(r *http.Request) string { return chi.URLParam(r, "id") }

// idOnly is a task route's params: the path's task id; a body is ignored.
func idOnly(r *http.Request, _ []byte) (json.RawMessage, error) {
	return a2a.Marshal(map[string]string{"id": pathID(r)})
}

// Query parameters read as numbers or booleans (A2A §11.5); every other one
// is a string. A value that does not parse is passed on as the string sent,
// so that the method's own check refuses it with its -32602.
var (
	queryIntegers = map[string]bool{"historyLength": true, "pageSize": true}
	queryBooleans = map[string]bool{"includeArtifacts": true}
)

// queryParams reads a GET route's params from its camelCase query
// parameters (A2A §11.5), with the path's task id as "id" when id is set.
// A parameter given twice is -32602.
func queryParams(id func(*http.Request) string) func(*http.Request, []byte) (json.RawMessage, error) {
	return func(r *http.Request, _ []byte) (json.RawMessage, error) {
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return nil, a2a.InvalidParams("the query string is not URL-encoded: " + err.Error())
		}
		obj := map[string]any{}
		if id != nil {
			obj["id"] = id(r)
		}
		for k, vs := range q {
			if k == a2a.HeaderVersion || k == "id" && id != nil {
				continue // ORD-1 step 8 reads the version; the path names the task
			}
			if len(vs) != 1 {
				return nil, a2a.InvalidParams("query parameter " + k + " is given more than once")
			}
			var v any = vs[0]
			if n, err := strconv.ParseInt(vs[0], 10, 64); err == nil && queryIntegers[k] {
				v = n
			} else if b, err := strconv.ParseBool(vs[0]); err == nil && queryBooleans[k] && (vs[0] == "true" || vs[0] == "false") {
				v = b
			}
			obj[k] = v
		}
		return a2a.Marshal(obj)
	}
}

// serveREST is an HTTP+JSON route past ORD-1 steps 2–3: step 5 (a body
// within the size limit, in a JSON media type when there is one), the
// body's JSON, then steps 8 to 14 as for POST /; answers are the method's
// result as the body, errors google.rpc.Status with A2A §5.4's HTTP status.
func (s *Server) serveREST(rt restRoute) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex := exchangeOf(r)
		ex.rest = true
		ex.method = s.metrics.method(rt.method)
		body, held, ok := s.bodyWithin(w, r)
		defer s.bodies.give(held)
		if !ok {
			return
		}
		fail := func(err error) { s.answer(w, r, nullID, errorOf(err)) }
		if len(body) > 0 {
			if ct := r.Header.Get("Content-Type"); !jsonMediaType(ct) {
				fail(a2a.MediaTypeNotSupported(ct))
				return
			}
			if !json.Valid(body) {
				fail(a2a.ParseError())
				return
			}
			if _, ok := scanObject(body); !ok {
				fail(a2a.InvalidParams("the request body must be a JSON object"))
				return
			}
		}
		params, err := rt.params(r, body)
		if err != nil {
			fail(err)
			return
		}
		s.dispatch(w, r, envelope{id: nullID, method: rt.method, params: params})
	}
}

// answerREST writes one HTTP+JSON answer (A2A §11.4, §11.6): the result as
// the body with HTTP 200, or the error's google.rpc.Status with its HTTP
// status; application/a2a+json either way.
func (s *Server) answerREST(w http.ResponseWriter, resp *jsonrpc2.Response) {
	status, body := http.StatusOK, []byte(nil)
	if resp.Error != nil {
		e := restError(resp.Error)
		status, _ = e.HTTPStatus()
		body = e.Status()
	} else {
		body = *resp.Result
	}
	h := w.Header()
	h.Set("Content-Type", a2a.MediaTypeA2AJSON)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	w.WriteHeader(status)
	_, _ = w.Write(body)
	_ = rc.Flush()
	_ = rc.SetWriteDeadline(time.Time{})
}

// restError rebuilds the *a2a.Error a jsonrpc2 error was made from.
func restError(je *jsonrpc2.Error) *a2a.Error {
	var data json.RawMessage
	if je.Data != nil {
		data = *je.Data
	}
	return a2a.ErrorFromWire(je.Code, je.Message, data)
}
