package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Sentinel errors, one per JSON-RPC error a door answers (door.md RPC-2, RPC-4,
// PEER-5). Branch on them with errors.Is; *Error carries the wire details.
var (
	ErrParse                      = errors.New("invalid JSON payload")
	ErrInvalidRequest             = errors.New("request payload validation error")
	ErrMethodNotFound             = errors.New("method not found")
	ErrInvalidParams              = errors.New("invalid params")
	ErrInternal                   = errors.New("internal error")
	ErrTaskNotFound               = errors.New("task not found")
	ErrTaskNotCancelable          = errors.New("task not cancelable")
	ErrPushNotificationNotSupport = errors.New("push notification not supported")
	ErrUnsupportedOperation       = errors.New("unsupported operation")
	ErrContentTypeNotSupported    = errors.New("content type not supported")
	ErrVersionNotSupported        = errors.New("version not supported")
	ErrCompletionMisaddressed     = errors.New("completion misaddressed")
	ErrCompletionNotAwaited       = errors.New("completion not awaited")
)

// Domains of google.rpc.ErrorInfo details.
const (
	DomainA2A    = "a2a-protocol.org"
	DomainMurmur = "murmur.nexus"
)

// ErrorInfoType is the @type of every error detail a door writes (door.md RPC-4).
const ErrorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"

// codes is the one table from sentinel to JSON-RPC code, reason and domain,
// and to the HTTP+JSON binding's HTTP status and google.rpc.Code name (A2A
// §5.4, §11.6). Standard JSON-RPC errors have no reason: they carry no data
// (RPC-2).
var codes = []struct {
	err    error
	code   int64
	reason string
	domain string
	http   int
	status string
}{
	{ErrParse, -32700, "", "", 400, "INVALID_ARGUMENT"},
	{ErrInvalidRequest, -32600, "", "", 400, "INVALID_ARGUMENT"},
	{ErrMethodNotFound, -32601, "", "", 404, "NOT_FOUND"},
	{ErrInvalidParams, -32602, "", "", 400, "INVALID_ARGUMENT"},
	{ErrInternal, -32603, "", "", 500, "INTERNAL"},
	{ErrTaskNotFound, -32001, "TASK_NOT_FOUND", DomainA2A, 404, "NOT_FOUND"},
	{ErrTaskNotCancelable, -32002, "TASK_NOT_CANCELABLE", DomainA2A, 400, "FAILED_PRECONDITION"},
	{ErrPushNotificationNotSupport, -32003, "PUSH_NOTIFICATION_NOT_SUPPORTED", DomainA2A, 400, "FAILED_PRECONDITION"},
	{ErrUnsupportedOperation, -32004, "UNSUPPORTED_OPERATION", DomainA2A, 400, "FAILED_PRECONDITION"},
	{ErrContentTypeNotSupported, -32005, "CONTENT_TYPE_NOT_SUPPORTED", DomainA2A, 400, "INVALID_ARGUMENT"},
	{ErrVersionNotSupported, -32009, "VERSION_NOT_SUPPORTED", DomainA2A, 400, "FAILED_PRECONDITION"},
	{ErrCompletionMisaddressed, -31001, "COMPLETION_MISADDRESSED", DomainMurmur, 400, "FAILED_PRECONDITION"},
	{ErrCompletionNotAwaited, -31002, "COMPLETION_NOT_AWAITED", DomainMurmur, 400, "FAILED_PRECONDITION"},
}

// HTTPStatus is the error's HTTP status and google.rpc.Code name in the
// HTTP+JSON binding (A2A §5.4): a code the table lacks is 500 INTERNAL.
func (e *Error) HTTPStatus() (int, string) {
	for _, c := range codes {
		if c.code == e.Code {
			return c.http, c.status
		}
	}
	return 500, "INTERNAL"
}

// Status is the HTTP+JSON binding's error body, google.rpc.Status under
// "error" (A2A §11.6): the HTTP status as code, its google.rpc.Code name,
// the message, and the ErrorInfo of an A2A or murmur error in details
// (empty for a standard JSON-RPC error).
func (e *Error) Status() []byte {
	code, name := e.HTTPStatus()
	details := e.Data()
	if details == nil {
		details = []ErrorInfo{}
	}
	type status struct {
		Code    int         `json:"code"`
		Status  string      `json:"status"`
		Message string      `json:"message"`
		Details []ErrorInfo `json:"details"`
	}
	b, err := Marshal(struct {
		Error status `json:"error"`
	}{status{code, name, e.Message, details}})
	if err != nil { // strings, an int and ErrorInfos of strings always marshal
		return []byte(`{"error":{"code":500,"status":"INTERNAL","message":"the error could not be encoded","details":[]}}`)
	}
	return b
}

// Error is a JSON-RPC error as a door answers it and a client reads it.
// Kind is the sentinel it stands for (nil for a code this table lacks).
type Error struct {
	Code     int64
	Message  string
	Reason   string            // ErrorInfo reason; "" for standard JSON-RPC errors
	Domain   string            // ErrorInfo domain
	Metadata map[string]string // ErrorInfo metadata; never nil when Reason is set
	Kind     error
}

func (e *Error) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// Unwrap returns the sentinel, so errors.Is(err, ErrTaskNotFound) works.
func (e *Error) Unwrap() error { return e.Kind }

// ErrorInfo is one google.rpc.ErrorInfo detail.
type ErrorInfo struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata"`
}

// metadataOrder is the order ErrorInfo metadata keys are written in: door.md
// RPC-4's example (taskId, state) and tables (partIndex, mediaType), RPC-3
// (requestedVersion, supportedVersions), PEER-5 (addressedSession,
// delegationId). Other keys follow, sorted.
var metadataOrder = []string{"taskId", "state", "partIndex", "mediaType", "requestedVersion", "supportedVersions",
	"addressedSession", "delegationId"}

// MarshalJSON writes the detail with its metadata keys in door.md's order
// (metadataOrder) rather than encoding/json's sorted map order, and without
// HTML escaping, as the door writes every answer.
func (i ErrorInfo) MarshalJSON() ([]byte, error) {
	keys := make([]string, 0, len(i.Metadata))
	for _, k := range metadataOrder {
		if _, ok := i.Metadata[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range i.Metadata {
		if !slices.Contains(metadataOrder, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	md := make(Object, 0, len(i.Metadata))
	for _, k := range append(keys, rest...) {
		md = append(md, Member{Key: k, Value: i.Metadata[k]})
	}
	return Marshal(struct {
		Type     string `json:"@type"`
		Reason   string `json:"reason"`
		Domain   string `json:"domain"`
		Metadata Object `json:"metadata"`
	}{i.Type, i.Reason, i.Domain, md})
}

// Data is the error's `data` member: one ErrorInfo for A2A and murmur errors,
// nil for standard JSON-RPC errors (door.md RPC-2, RPC-4).
func (e *Error) Data() []ErrorInfo {
	if e.Reason == "" {
		return nil
	}
	md := e.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return []ErrorInfo{{Type: ErrorInfoType, Reason: e.Reason, Domain: e.Domain, Metadata: md}}
}

// NewError builds the error for kind with message and ErrorInfo metadata.
func NewError(kind error, message string, metadata map[string]string) *Error {
	for _, c := range codes {
		if c.err == kind {
			e := &Error{Code: c.code, Message: message, Reason: c.reason, Domain: c.domain, Kind: kind}
			if c.reason != "" {
				e.Metadata = metadata
				if e.Metadata == nil {
					e.Metadata = map[string]string{}
				}
			}
			return e
		}
	}
	return &Error{Code: -32603, Message: message, Kind: ErrInternal}
}

// ErrorFromWire rebuilds an error a door answered; unknown codes keep Kind nil.
func ErrorFromWire(code int64, message string, data json.RawMessage) *Error {
	e := &Error{Code: code, Message: message}
	for _, c := range codes {
		if c.code == code {
			e.Kind = c.err
			break
		}
	}
	var infos []ErrorInfo
	if len(data) > 0 && json.Unmarshal(data, &infos) == nil && len(infos) > 0 {
		e.Reason, e.Domain, e.Metadata = infos[0].Reason, infos[0].Domain, infos[0].Metadata
	}
	return e
}

// Constructors for the errors with fixed texts (door.md RPC-2, RPC-3, RPC-4).

// ParseError is -32700 "Invalid JSON payload".
func ParseError() *Error { return NewError(ErrParse, "Invalid JSON payload", nil) }

// InvalidRequest is -32600 "Request payload validation error".
func InvalidRequest() *Error {
	return NewError(ErrInvalidRequest, "Request payload validation error", nil)
}

// MethodNotFound is -32601 "Method not found".
func MethodNotFound() *Error { return NewError(ErrMethodNotFound, "Method not found", nil) }

// InvalidParams is -32602 with a sentence naming the parameter.
func InvalidParams(sentence string) *Error { return NewError(ErrInvalidParams, sentence, nil) }

// InternalError is -32603 with a sentence naming the failure.
func InternalError(sentence string) *Error { return NewError(ErrInternal, sentence, nil) }

// TaskNotFound is -32001 for id.
func TaskNotFound(id TaskID) *Error {
	return NewError(ErrTaskNotFound, "Task not found", map[string]string{"taskId": string(id)})
}

// TaskNotCancelable is -32002 for an ended task.
func TaskNotCancelable(id TaskID, state TaskState) *Error {
	return NewError(ErrTaskNotCancelable, "Task cannot be canceled: it is already "+string(state),
		map[string]string{"taskId": string(id), "state": string(state)})
}

// PushNotificationNotSupported is -32003.
func PushNotificationNotSupported() *Error {
	return NewError(ErrPushNotificationNotSupport, "Push notifications are not supported", nil)
}

// UnsupportedOperation is -32004; metadata names the task and state when one is named.
func UnsupportedOperation(message string, metadata map[string]string) *Error {
	return NewError(ErrUnsupportedOperation, message, metadata)
}

// ContentTypeNotSupported is -32005 naming the first raw or url part.
func ContentTypeNotSupported(partIndex int, mediaType string) *Error {
	md := map[string]string{"partIndex": fmt.Sprint(partIndex)}
	if mediaType != "" {
		md["mediaType"] = mediaType
	}
	return NewError(ErrContentTypeNotSupported, "Content type not supported: only text and data parts are read", md)
}

// VersionNotSupported is -32009 for the version the request sent ("" when absent).
func VersionNotSupported(requested string) *Error {
	return NewError(ErrVersionNotSupported,
		"A2A version '"+requested+"' is not supported; this agent speaks 1.0",
		map[string]string{"requestedVersion": requested, "supportedVersions": "1.0"})
}

// MediaTypeA2AJSON is the A2A media type v1.0.1 prefers for request and
// response bodies; a door reads it as it reads MediaTypeJSON.
const MediaTypeA2AJSON = "application/a2a+json"

// MediaTypeNotSupported is -32005 for a request body sent as a media type the
// door does not read; mediaType is the Content-Type sent ("" when absent).
func MediaTypeNotSupported(mediaType string) *Error {
	return NewError(ErrContentTypeNotSupported,
		"Content type not supported: send the request as "+MediaTypeJSON+" or "+MediaTypeA2AJSON,
		map[string]string{"mediaType": mediaType})
}
