package door

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/murmur-go/mur/a2a"
)

// bufPool recycles the buffers answers are built in.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// rpcError converts a door error to its wire form (RPC-2, RPC-4): A2A and
// murmur errors carry one ErrorInfo in data, standard ones none. Any error
// that is not an *a2a.Error is -32603.
func rpcError(err error) *jsonrpc2.Error {
	e, ok := errors.AsType[*a2a.Error](err)
	if !ok {
		e = a2a.InternalError("the request could not be handed to the session")
	}
	je := &jsonrpc2.Error{Code: e.Code, Message: e.Message}
	if d := e.Data(); d != nil {
		b, err := a2a.Marshal(d)
		if err == nil {
			raw := json.RawMessage(b)
			je.Data = &raw
		}
	}
	return je
}

// resultOf wraps a result value as a jsonrpc2 response; a value that does not
// marshal is -32603.
func resultOf(v any) *jsonrpc2.Response {
	b, err := a2a.Marshal(v)
	if err != nil {
		return &jsonrpc2.Response{Error: rpcError(err)}
	}
	rr := &rawResult{raw: b} // one allocation for the answer and its result
	rr.resp.Result = &rr.raw
	return &rr.resp
}

// rawResult is a response and the raw result it points at, allocated together.
type rawResult struct {
	resp jsonrpc2.Response
	raw  json.RawMessage
}

func errorOf(err error) *jsonrpc2.Response { return &jsonrpc2.Response{Error: rpcError(err)} }

// appendResponse renders resp as one line in the key order of door.md's
// examples: {"jsonrpc":"2.0","id":<raw id>,"result"|"error":…} (GO-3:
// jsonrpc2.ID holds no negative or raw id, so the id is echoed as sent).
func appendResponse(dst []byte, id json.RawMessage, resp *jsonrpc2.Response) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	if resp.Error != nil {
		b, err := a2a.Marshal(resp.Error)
		if err != nil { // a jsonrpc2.Error of a code, a string and raw JSON always marshals
			b = []byte(`{"code":-32603,"message":"the answer could not be encoded"}`)
		}
		dst = append(dst, `,"error":`...)
		dst = append(dst, b...)
	} else {
		dst = append(dst, `,"result":`...)
		dst = append(dst, *resp.Result...)
	}
	return append(dst, '}')
}

// answer writes one plain JSON-RPC answer: HTTP 200, application/json
// (DOOR-6), bounded by a write deadline so a client that does not read
// cannot hold the door (DOOR-7 allows it: the call is over).
func (s *Server) answer(w http.ResponseWriter, r *http.Request, id json.RawMessage, resp *jsonrpc2.Response) {
	ex := exchangeOf(r)
	if resp.Error != nil {
		ex.rpcError(resp.Error.Code)
		s.log.Debug("door answered an error", "method", methodLabels[ex.method], "code", resp.Error.Code)
	}
	if ex.rest {
		s.answerREST(w, resp)
		return
	}
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	buf.Write(appendResponse(buf.AvailableBuffer(), id, resp))
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
	_ = rc.Flush()
	_ = rc.SetWriteDeadline(time.Time{}) // the connection may serve another request
}
