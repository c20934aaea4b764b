package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/murmur-go/mur/a2a"
)

// The HTTP+JSON binding (A2A §11): the card lists it, and its routes answer
// what the JSON-RPC methods do, errors as google.rpc.Status (§11.6) with
// §5.4's HTTP status. Each check skips on a door whose card lists no
// HTTP+JSON interface.

// restBase is the URL of the card's HTTP+JSON 1.0 interface, without a
// trailing "/"; a check skips when the card lists none.
func (s *suite) restBase() (string, error) {
	for _, in := range s.card.SupportedInterfaces {
		if in.ProtocolBinding == a2a.BindingHTTPJSON && in.ProtocolVersion == a2a.ProtocolVersion {
			u, err := url.Parse(in.URL)
			if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
				return "", failf("HTTP+JSON interface url %q is not an absolute http(s) URL", in.URL)
			}
			return trimSlash(in.URL), nil
		}
	}
	return "", skipf("the card lists no HTTP+JSON 1.0 interface")
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// rest sends one HTTP+JSON request: a JSON body when body is not nil,
// A2A-Version 1.0 and the bearer token unless h removes them.
func (s *suite) rest(ctx context.Context, method, path string, body any, h hdr) (*exchange, error) {
	base, err := s.restBase()
	if err != nil {
		return nil, err
	}
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return nil, err
	}
	s.postHeaders(req)
	if body == nil {
		req.Header.Del("Content-Type")
	}
	h.apply(req.Header)
	return s.send(req)
}

// restOK checks a success: HTTP 200, a JSON media type, a JSON body.
func restOK(what string, ex *exchange) (json.RawMessage, error) {
	if ex.status != http.StatusOK {
		return nil, failf("%s: HTTP %d %s, want 200", what, ex.status, snippet(ex.body))
	}
	if mt := ex.mediaType(); mt != a2a.MediaTypeJSON && mt != a2a.MediaTypeA2AJSON {
		return nil, failf("%s: Content-Type %q, want application/a2a+json or application/json", what, ex.header.Get("Content-Type"))
	}
	if !json.Valid(ex.body) {
		return nil, failf("%s: the body is not JSON: %s", what, snippet(ex.body))
	}
	return ex.body, nil
}

// expectStatus checks an error answer (A2A §11.6): the HTTP status, a
// google.rpc.Status body whose code is that status, and for an A2A error
// (reason set) one ErrorInfo with reason and domain a2a-protocol.org.
func (s *suite) expectStatus(what string, ex *exchange, status int, reason string) error {
	if ex.status != status {
		return failf("%s: HTTP %d %s, want %d", what, ex.status, snippet(ex.body), status)
	}
	var st struct {
		Error *struct {
			Code    *int            `json:"code"`
			Message *string         `json:"message"`
			Details json.RawMessage `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(ex.body, &st); err != nil || st.Error == nil || st.Error.Code == nil || st.Error.Message == nil {
		return failf("%s: body %s, want google.rpc.Status {\"error\":{\"code\",\"message\",…}} (A2A §11.6)", what, snippet(ex.body))
	}
	if *st.Error.Code != status {
		return failf("%s: error.code %d, want the HTTP status %d", what, *st.Error.Code, status)
	}
	if reason == "" {
		return nil
	}
	var details []a2a.ErrorInfo
	if err := json.Unmarshal(st.Error.Details, &details); err != nil {
		return failf("%s: error.details %s is not an array of objects", what, snippet(st.Error.Details))
	}
	for _, d := range details {
		if d.Type == a2a.ErrorInfoType && d.Reason == reason && d.Domain == a2a.DomainA2A {
			return nil
		}
	}
	return failf("%s: error.details %s, want a google.rpc.ErrorInfo with reason %s in %s (A2A §11.6)", what, snippet(st.Error.Details), reason, a2a.DomainA2A)
}

// restTask decodes and checks a task answer.
func (s *suite) restTask(what string, ex *exchange, wrapped bool) (*a2a.Task, error) {
	b, err := restOK(what, ex)
	if err != nil {
		return nil, err
	}
	if wrapped {
		if err := validate(b, sendResponseSpec, "body"); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		var r a2a.SendMessageResponse
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, failf("%s: %v", what, err)
		}
		if r.Task == nil {
			return nil, skipf("%s answered a message, not a task", what)
		}
		b, _ = json.Marshal(r.Task)
	}
	var t a2a.Task
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, failf("%s: %v", what, err)
	}
	if err := s.checkTask(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	s.track(&t)
	return &t, nil
}

// restSendTask posts text to /message:send and returns the task answered;
// a door that serves no SendMessage, or rejects the task, makes the caller
// skip.
func (s *suite) restSendTask(ctx context.Context, text string) (*a2a.Task, error) {
	ex, err := s.rest(ctx, http.MethodPost, "/message:send", s.sendParams(text, true), nil)
	if err != nil {
		return nil, err
	}
	if ex.status != http.StatusOK && !s.serves(a2a.MethodSendMessage) {
		return nil, skipf("the door serves no SendMessage (its door extension does not list it)")
	}
	t, err := s.restTask("POST /message:send", ex, true)
	if err != nil {
		return nil, err
	}
	if t.Status.State == a2a.TaskStateRejected {
		return nil, skipf("the door rejected the task: %q", statusText(t))
	}
	return t, nil
}

// restSend: A2A §11.3.1 — POST /message:send answers SendMessageResponse.
func restSend(ctx context.Context, s *suite) error {
	_, err := s.restSendTask(ctx, s.cfg.TaskText)
	return err
}

// restGet: A2A §11.3.2, §11.5 — GET /tasks/{id} answers the task, honouring
// historyLength as a query parameter; an unknown id is 404 TASK_NOT_FOUND.
func restGet(ctx context.Context, s *suite) error {
	sent, err := s.restSendTask(ctx, s.cfg.TaskText)
	if err != nil {
		return needs("a task", err)
	}
	ex, err := s.rest(ctx, http.MethodGet, "/tasks/"+url.PathEscape(string(sent.ID))+"?historyLength=1", nil, nil)
	if err != nil {
		return err
	}
	got, err := s.restTask("GET /tasks/{id}?historyLength=1", ex, false)
	if err != nil {
		return err
	}
	if got.ID != sent.ID {
		return failf("GET /tasks/%s answered task %s", sent.ID, got.ID)
	}
	if len(got.History) > 1 {
		return failf("GET /tasks/{id}?historyLength=1 answered %d history messages, want at most 1 (A2A §3.2.4)", len(got.History))
	}
	ex, err = s.rest(ctx, http.MethodGet, "/tasks/"+unknownTaskID, nil, nil)
	if err != nil {
		return err
	}
	return s.expectStatus("GET /tasks/<unknown id>", ex, http.StatusNotFound, "TASK_NOT_FOUND")
}

// restList: A2A §11.3.2, §11.5 — GET /tasks answers ListTasksResponse with
// camelCase query parameters; an out-of-range pageSize is 400.
func restList(ctx context.Context, s *suite) error {
	ex, err := s.rest(ctx, http.MethodGet, "/tasks?pageSize=1&includeArtifacts=false", nil, nil)
	if err != nil {
		return err
	}
	b, err := restOK("GET /tasks?pageSize=1", ex)
	if err != nil {
		return err
	}
	if err := validate(b, listResponseSpec, "body"); err != nil {
		return fmt.Errorf("GET /tasks: %w", err)
	}
	var r a2a.ListTasksResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return failf("GET /tasks: %v", err)
	}
	if len(r.Tasks) > 1 {
		return failf("GET /tasks?pageSize=1 answered %d tasks, want at most 1", len(r.Tasks))
	}
	ex, err = s.rest(ctx, http.MethodGet, "/tasks?pageSize=0", nil, nil)
	if err != nil {
		return err
	}
	return s.expectStatus("GET /tasks?pageSize=0", ex, http.StatusBadRequest, "")
}

// restCancel: A2A §11.3.2 — POST /tasks/{id}:cancel answers a live task
// CANCELED; an unknown id is 404 TASK_NOT_FOUND.
func restCancel(ctx context.Context, s *suite) error {
	text, slow := s.cfg.SlowTaskText, true
	if text == "" {
		text, slow = s.cfg.TaskText, false
	}
	live, err := s.restSendTask(ctx, text)
	if err != nil {
		return needs("a live task", err)
	}
	if live.Status.State.Terminal() {
		return skipf("the task ended %s before the check could cancel it%s", live.Status.State, slowHint(slow))
	}
	ex, err := s.rest(ctx, http.MethodPost, "/tasks/"+url.PathEscape(string(live.ID))+":cancel", nil, nil)
	if err != nil {
		return err
	}
	if ex.status == http.StatusBadRequest && !slow {
		return skipf("the task ended before the cancel reached it%s", slowHint(slow))
	}
	t, err := s.restTask("POST /tasks/{id}:cancel", ex, false)
	if err != nil {
		return err
	}
	if t.Status.State != a2a.TaskStateCanceled {
		return failf("POST /tasks/{id}:cancel answered %s, want TASK_STATE_CANCELED", t.Status.State)
	}
	ex, err = s.rest(ctx, http.MethodPost, "/tasks/"+unknownTaskID+":cancel", nil, nil)
	if err != nil {
		return err
	}
	return s.expectStatus("POST /tasks/<unknown id>:cancel", ex, http.StatusNotFound, "TASK_NOT_FOUND")
}

// restStream: A2A §11.7 — POST /message:stream is an event stream whose
// data lines are StreamResponse objects, no JSON-RPC envelope: the task
// first, then its updates to a terminal or interrupted status.
func restStream(ctx context.Context, s *suite) error {
	if !s.card.Capabilities.Streaming {
		return skipf("the card says streaming false")
	}
	base, err := s.restBase()
	if err != nil {
		return err
	}
	b, _ := json.Marshal(s.sendParams(s.cfg.TaskText, false))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/message:stream", bytes.NewReader(b))
	if err != nil {
		return err
	}
	s.postHeaders(req)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := s.hc.Do(req)
	if err != nil {
		return fmt.Errorf("POST /message:stream: the door did not answer: %w", transportErr(err))
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return failf("POST /message:stream: HTTP %d %q %s, want 200 text/event-stream", resp.StatusCode, resp.Header.Get("Content-Type"), snippet(body))
	}
	st := &stream{resp: resp, br: bufio.NewReaderSize(resp.Body, 64<<10), rest: true, strict: s.murmur}
	t, err := s.firstTask(st)
	if err != nil {
		return fmt.Errorf("POST /message:stream: %w", err)
	}
	s.track(t)
	if _, err := s.follow(st, t); err != nil {
		return fmt.Errorf("POST /message:stream: %w", err)
	}
	return nil
}

// restErrors: A2A §11.2, §11.6 — a body in a media type the door does not
// read is 400 CONTENT_TYPE_NOT_SUPPORTED; no A2A-Version is 400
// VERSION_NOT_SUPPORTED; push-notification configs, when the card says
// pushNotifications false, are 400 PUSH_NOTIFICATION_NOT_SUPPORTED.
func restErrors(ctx context.Context, s *suite) error {
	ex, err := s.rest(ctx, http.MethodPost, "/message:send", s.sendParams(s.cfg.TaskText, true), hdr{"Content-Type": "text/plain"})
	if err != nil {
		return err
	}
	if err := s.expectStatus("POST /message:send as text/plain", ex, http.StatusBadRequest, "CONTENT_TYPE_NOT_SUPPORTED"); err != nil {
		return err
	}
	ex, err = s.rest(ctx, http.MethodGet, "/tasks/"+unknownTaskID, nil, hdr{a2a.HeaderVersion: ""})
	if err != nil {
		return err
	}
	if err := s.expectStatus("GET /tasks/{id} without A2A-Version", ex, http.StatusBadRequest, "VERSION_NOT_SUPPORTED"); err != nil {
		return err
	}
	if s.card.Capabilities.PushNotifications {
		return nil
	}
	ex, err = s.rest(ctx, http.MethodGet, "/tasks/"+unknownTaskID+"/pushNotificationConfigs", nil, nil)
	if err != nil {
		return err
	}
	return s.expectStatus("GET /tasks/{id}/pushNotificationConfigs", ex, http.StatusBadRequest, "PUSH_NOTIFICATION_NOT_SUPPORTED")
}
