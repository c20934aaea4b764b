package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// maxBody bounds what the suite reads of one answer.
const maxBody = 16 << 20

// exchange is one raw HTTP answer.
type exchange struct {
	status int
	header http.Header
	body   []byte
}

func (e *exchange) mediaType() string {
	mt, _, _ := mime.ParseMediaType(e.header.Get("Content-Type"))
	return mt
}

// hdr edits a request's headers; a value of "" deletes the header.
type hdr map[string]string

// do sends one raw request. POSTs carry Content-Type application/json,
// A2A-Version 1.0 and the bearer token unless h removes them.
func (s *suite) do(ctx context.Context, method, path string, body []byte, h hdr) (*exchange, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if method == http.MethodPost {
		s.postHeaders(req)
	}
	h.apply(req.Header)
	return s.send(req)
}

// postHeaders sets a POST's defaults: Content-Type application/json,
// A2A-Version 1.0 and the bearer token when there is one.
func (s *suite) postHeaders(req *http.Request) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(a2a.HeaderVersion, a2a.ProtocolVersion)
	if s.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.Token)
	}
}

// apply makes h's edits to header.
func (h hdr) apply(header http.Header) {
	for k, v := range h {
		if v == "" {
			header.Del(k)
		} else {
			header.Set(k, v)
		}
	}
}

// send sends req and reads its whole (bounded) answer.
func (s *suite) send(req *http.Request) (*exchange, error) {
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: the door did not answer: %w", req.Method, req.URL.Path, transportErr(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", req.Method, req.URL.Path, err)
	}
	return &exchange{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// rpcAnswer is a JSON-RPC response as the door wrote it.
type rpcAnswer struct {
	ex     *exchange
	id     json.RawMessage
	result json.RawMessage
	err    *wireError
}

type wireError struct {
	Code    *int64          `json:"code"`
	Message *string         `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// request renders a JSON-RPC request; params nil leaves them out.
func request(id any, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return b
}

// rpc posts body to / and reads a JSON-RPC answer (door.md DOOR-6, RPC-1):
// HTTP 200, Content-Type application/json, one response object.
func (s *suite) rpc(ctx context.Context, body []byte, h hdr) (*rpcAnswer, error) {
	ex, err := s.do(ctx, http.MethodPost, "/", body, h)
	if err != nil {
		return nil, err
	}
	return parseAnswer(ex)
}

// call sends method with params under a fresh numeric id.
func (s *suite) call(ctx context.Context, method string, params any, h hdr) (*rpcAnswer, error) {
	return s.rpc(ctx, request(s.nextID(), method, params), h)
}

// nextID returns a fresh id for a raw request; checks run one at a time.
func (s *suite) nextID() int64 {
	s.ids++
	return 1000 + s.ids
}

func parseAnswer(ex *exchange) (*rpcAnswer, error) {
	if ex.status != http.StatusOK {
		return nil, failf("HTTP %d %s, want 200 with a JSON-RPC answer", ex.status, snippet(ex.body))
	}
	if mt := ex.mediaType(); mt != a2a.MediaTypeJSON && mt != a2a.MediaTypeA2AJSON {
		return nil, failf("Content-Type %q, want application/json", ex.header.Get("Content-Type"))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(ex.body, &m); err != nil {
		return nil, failf("the answer is not one JSON object: %v: %s", err, snippet(ex.body))
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return nil, failf(`jsonrpc is %s, want "2.0"`, orAbsent(m["jsonrpc"]))
	}
	id, ok := m["id"]
	if !ok {
		return nil, failf("the answer has no id")
	}
	a := &rpcAnswer{ex: ex, id: id, result: m["result"]}
	if raw, has := m["error"]; has {
		if a.result != nil {
			return nil, failf("the answer holds both result and error")
		}
		if err := json.Unmarshal(raw, &a.err); err != nil || a.err == nil || a.err.Code == nil || a.err.Message == nil {
			return nil, failf("error is not {code, message}: %s", raw)
		}
		return a, nil
	}
	if a.result == nil {
		return nil, failf("the answer holds neither result nor error")
	}
	return a, nil
}

// ok returns the answer's result, or fails naming the error it got instead.
func (a *rpcAnswer) ok() (json.RawMessage, error) {
	if a.err != nil {
		return nil, failf("JSON-RPC error %d %q, want a result", *a.err.Code, *a.err.Message)
	}
	return a.result, nil
}

// expectID checks the answer echoes id with its JSON type (RPC-1).
func (a *rpcAnswer) expectID(id string) error {
	if got := string(a.id); got != id {
		return failf("id %s, want %s", got, id)
	}
	return nil
}

// expectCode checks the answer is JSON-RPC error code.
func (a *rpcAnswer) expectCode(code int64) error {
	if a.err == nil {
		return failf("a result %s, want JSON-RPC error %d", snippet(a.result), code)
	}
	if *a.err.Code != code {
		return failf("JSON-RPC error %d %q, want %d", *a.err.Code, *a.err.Message, code)
	}
	return nil
}

// expectStandard checks a standard JSON-RPC error (-32700…-32603): its code,
// and on a murmur door its exact message (when given) and no data (RPC-2).
func (s *suite) expectStandard(a *rpcAnswer, code int64, message string) error {
	if err := a.expectCode(code); err != nil {
		return err
	}
	if s.murmur && message != "" && *a.err.Message != message {
		return failf("message %q, want %q", *a.err.Message, message)
	}
	if s.murmur && len(a.err.Data) > 0 && string(a.err.Data) != "null" {
		return failf("error %d carries data %s, want none (RPC-2)", code, a.err.Data)
	}
	return nil
}

// expectA2A checks an A2A error: code, and its one google.rpc.ErrorInfo
// (reason, domain a2a-protocol.org, string metadata; door.md RPC-4). On a
// murmur door the metadata must hold md (key → value, "*" any value).
func (s *suite) expectA2A(a *rpcAnswer, code int64, reason string, md map[string]string) error {
	return s.expectInfo(a, code, reason, a2a.DomainA2A, md)
}

// expectInfo is expectA2A for any ErrorInfo domain (murmur's: PEER-5).
func (s *suite) expectInfo(a *rpcAnswer, code int64, reason, domain string, md map[string]string) error {
	if err := a.expectCode(code); err != nil {
		return err
	}
	info, err := errorInfo(a.err.Data)
	if err != nil {
		return failf("error %d: %v", code, err)
	}
	if info.Reason != reason || info.Domain != domain {
		return failf("error %d: ErrorInfo reason %q domain %q, want %q in %q", code, info.Reason, info.Domain, reason, domain)
	}
	if !s.murmur {
		return nil
	}
	for k, want := range md {
		got, has := info.Metadata[k]
		if !has || want != "*" && got != want {
			return failf("error %d: ErrorInfo metadata %v, want %s=%q", code, info.Metadata, k, want)
		}
	}
	return nil
}

// errorInfo reads the one ErrorInfo of an error's data.
func errorInfo(data json.RawMessage) (*a2a.ErrorInfo, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("no data, want [google.rpc.ErrorInfo]")
	}
	var infos []map[string]json.RawMessage
	if err := json.Unmarshal(data, &infos); err != nil || len(infos) == 0 {
		return nil, fmt.Errorf("data %s is not an array of details", snippet(data))
	}
	var info a2a.ErrorInfo
	for _, raw := range infos {
		if string(raw["@type"]) != strconv.Quote(a2a.ErrorInfoType) {
			continue
		}
		b, _ := json.Marshal(raw)
		if err := json.Unmarshal(b, &info); err != nil {
			return nil, fmt.Errorf("ErrorInfo %s: %v (metadata values must be strings)", snippet(b), err)
		}
		return &info, nil
	}
	return nil, fmt.Errorf("data %s holds no %s", snippet(data), a2a.ErrorInfoType)
}

// snippet shortens b for a message.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

func orAbsent(raw json.RawMessage) string {
	if raw == nil {
		return "absent"
	}
	return string(raw)
}

// transportErr drops net/http's "Post \"<url>\": " wrapping: the check names
// the request already.
func transportErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
