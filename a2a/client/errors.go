package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
)

// ErrBadResponse is wrapped by every error for an answer that is not a valid
// JSON-RPC 2.0 response to the request sent (wrong id, bad JSON, both or
// neither of result and error, an unexpected content type or 204).
var ErrBadResponse = errors.New("the door's answer is not a valid JSON-RPC response")

// ErrResponseTooLarge is wrapped when an answer exceeds Config.MaxResponseBytes.
var ErrResponseTooLarge = errors.New("the door's answer exceeds the response size limit")

// HTTPError is a door's HTTP refusal: any status other than 200 on a JSON-RPC
// request (door.md AUTH-7 401/403, PEER-2 403, DOOR-4 404, DOOR-5 413), or a
// status other than 200 on the card. Code and Message come from a
// {"error","message"} body and are "" when the body is empty or not that shape.
type HTTPError struct {
	Status          int    // HTTP status code
	Code            string // the body's "error", e.g. "invalid_token"
	Message         string // the body's "message"
	WWWAuthenticate string // the www-authenticate header, "" when absent
	ContentType     string // the Content-Type header
	Body            []byte // the body as read (bounded by Config.MaxResponseBytes)
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("door answered HTTP %d", e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// newHTTPError reads a refusal's {"error","message"} body when it has that shape.
func newHTTPError(resp *http.Response, body []byte) *HTTPError {
	e := &HTTPError{
		Status:          resp.StatusCode,
		WWWAuthenticate: resp.Header.Get("Www-Authenticate"),
		ContentType:     resp.Header.Get("Content-Type"),
		Body:            body,
	}
	var refusal struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if len(body) > 0 && json.Unmarshal(body, &refusal) == nil {
		e.Code, e.Message = refusal.Error, refusal.Message
	}
	return e
}

// NoAnswerError reports that the door did not answer a request: the connection
// was refused or reset, the answer was cut off, the per-request timeout passed,
// or the context's deadline did. A caller that gives up (context canceled) gets
// the context's error instead. call-member counts two of these in a row as
// "unreachable" (tools.md CALL-9, CALL-10).
type NoAnswerError struct {
	Method string // the JSON-RPC method, or "GET <path>" for the card
	Err    error  // the transport's error
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("%s: the door did not answer: %v", e.Method, e.Err)
}

func (e *NoAnswerError) Unwrap() error { return e.Err }

// IsNoAnswer reports whether err means the door did not answer (a *NoAnswerError
// in its chain), as opposed to an answer that refused or failed the request.
func IsNoAnswer(err error) bool {
	var na *NoAnswerError
	return errors.As(err, &na)
}

// errRequestTimeout is the cancel cause of a per-request timeout.
var errRequestTimeout = errors.New("no answer within the request timeout")

// Failure is why a request got no answer, as the transport saw it, named
// without the door's address (which no text of a tool may carry).
type Failure int

// The transport failures Classify tells apart.
const (
	NoAnswer          Failure = iota // nothing more specific is known
	ConnectionRefused                // nothing listens at the address
	ConnectionReset                  // the peer reset the connection
	TimedOut                         // the request's deadline passed
	ClosedEarly                      // the connection closed before an answer
)

// Classify reads a transport error: the one place a refused, reset, timed
// out or cut connection is told apart.
func Classify(err error) Failure {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return ConnectionRefused
	case errors.Is(err, syscall.ECONNRESET):
		return ConnectionReset
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, errRequestTimeout), errors.As(err, &ne) && ne.Timeout():
		return TimedOut
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ClosedEarly
	}
	return NoAnswer
}

// String is the failure as a reason in a sentence; a caller that knows the
// deadline names it itself for TimedOut.
func (f Failure) String() string {
	switch f {
	case ConnectionRefused:
		return "connection refused"
	case ConnectionReset:
		return "connection reset"
	case TimedOut:
		return "no answer in time"
	case ClosedEarly:
		return "the connection closed before an answer"
	}
	return "no answer"
}
