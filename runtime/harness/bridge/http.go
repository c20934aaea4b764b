package bridge

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// calls are the requests BRG-2 answers; any other is -32601. The SDK knows
// more (completion/complete, resources/read, logging/setLevel, …) and, for
// a method it does not know, answers HTTP 400 in plain text.
var calls = map[string]bool{
	"initialize": true, "ping": true, "tools/list": true, "tools/call": true,
	"resources/list": true, "resources/templates/list": true, "prompts/list": true,
}

// notifications are the ones the SDK takes; any other is answered 202 here,
// where the SDK would answer HTTP 400.
var notifications = map[string]bool{
	"notifications/initialized": true, "notifications/cancelled": true,
	"notifications/progress": true, "notifications/roots/list_changed": true,
}

// ServeHTTP is the bridge's front (BRG-1, BRG-2): the token, the path, the
// HTTP method and the body bound, then the requests whose answer BRG-2
// fixes differently from the SDK; the rest is the SDK's.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", "Bearer")
		writeJSON(w, http.StatusUnauthorized, bodyUnauthorized)
		return
	}
	if r.URL.Path != Path {
		writeJSON(w, http.StatusNotFound, bodyNotFound)
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.post(w, r)
	case http.MethodDelete:
		s.delete(w, r)
	default:
		// GET would open the SDK's standalone SSE stream; BRG-2 answers
		// 405, after which both clients go on without one (verified).
		w.Header().Set("Allow", "POST, DELETE")
		writeJSON(w, http.StatusMethodNotAllowed, bodyNotAllowed)
	}
}

// authorized reports whether r carries "Authorization: Bearer <token>".
func (s *Server) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && s.token.matches(tok)
}

// post bounds the body (413 over MaxBody), answers what BRG-2 fixes itself,
// and hands the rest to the SDK.
func (s *Server) post(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > MaxBody {
		writeJSON(w, http.StatusRequestEntityTooLarge, bodyTooLarge)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		s.cfg.Logger.Debug("bridge: read request body", "err", err)
		return // the client is gone
	}
	if len(body) > MaxBody {
		writeJSON(w, http.StatusRequestEntityTooLarge, bodyTooLarge)
		return
	}
	if s.front(w, body) {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	s.sdk.ServeHTTP(w, r)
}

// front answers a single message the SDK would answer otherwise than
// BRG-2/BRG-5 say, and reports whether it did:
//   - server/discover (Claude Code's first request, at 2026-07-28) and any
//     method BRG-2 does not list: -32601. The SDK answers server/discover
//     with a 2026-07-28 discover result (or, with that version excluded,
//     -32022), and an unknown method with HTTP 400 in plain text.
//   - tools/call without params or without a name: -32602 "tools/call
//     requires a name" (the SDK answers a missing params with HTTP 400).
//   - a notification the SDK does not take: 202, empty.
//
// Batches, responses and malformed bodies go to the SDK.
func (s *Server) front(w http.ResponseWriter, body []byte) bool {
	// A light look, not jsonrpc.DecodeMessage: the SDK decodes the body
	// again, and its decoder allocates far more (BenchmarkBridgedCall).
	var m struct {
		ID     *json.RawMessage `json:"id"`
		Method *string          `json:"method"`
		Params json.RawMessage  `json:"params"`
	}
	if b := bytes.TrimLeft(body, " \t\r\n"); len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &m) != nil || m.Method == nil {
		return false // a batch, a response, or malformed: the SDK's
	}
	if m.ID == nil {
		if notifications[*m.Method] {
			return false
		}
		w.WriteHeader(http.StatusAccepted)
		return true
	}
	var raw any
	if json.Unmarshal(*m.ID, &raw) != nil {
		return false
	}
	id, err := jsonrpc.MakeID(raw)
	if err != nil || !id.IsValid() {
		return false // the SDK refuses it
	}
	switch {
	case !calls[*m.Method]:
		s.cfg.Logger.Debug("bridge: method not found", "method", *m.Method)
		writeRPCError(w, id, jsonrpc.CodeMethodNotFound, textMethodNotFound)
		return true
	case *m.Method == "tools/call" && !named(m.Params):
		writeRPCError(w, id, jsonrpc.CodeInvalidParams, textNameRequired)
		return true
	}
	return false
}

// named reports whether tools/call's params hold a non-empty string name.
func named(params json.RawMessage) bool {
	var p struct {
		Name *string `json:"name"`
	}
	return json.Unmarshal(params, &p) == nil && p.Name != nil && *p.Name != ""
}

// delete ends the MCP session Mcp-Session-Id names and answers 200 (BRG-2:
// Codex sends it at exit; the SDK would answer 204).
func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		writeJSON(w, http.StatusBadRequest, bodyNeedsSession)
		return
	}
	for ss := range s.mcp.Sessions() {
		if ss.ID() == id {
			_ = ss.Close()
			w.WriteHeader(http.StatusOK)
			return
		}
	}
	writeJSON(w, http.StatusNotFound, bodyNoSession)
}

// writeJSON writes a fixed JSON body with status.
func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// writeRPCError writes a JSON-RPC error response with HTTP 200, as the SDK
// answers errors under the versions BRG-2 negotiates.
func writeRPCError(w http.ResponseWriter, id jsonrpc.ID, code int64, message string) {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}
