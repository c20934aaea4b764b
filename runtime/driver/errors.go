package driver

import (
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/murmur-go/mur/runtime/diag"
)

// Sentinels for the two failures with their own task_failed cause (DRV-1,
// LOOP-19). Drivers return the typed errors below, which match these with
// errors.Is.
var (
	ErrCredentialRejected = errors.New("inference credential rejected")
	ErrInvalidResponse    = errors.New("inference response invalid")
)

// task_failed causes a driver error maps to (LOOP-19).
const (
	CauseDriverError        = "driver_error"
	CauseCredentialRejected = "credential_rejected"
	CauseInvalidResponse    = "invalid_response"
	CauseInternal           = "internal"
)

// MaxErrorBody is how many body bytes a TransportError keeps (DRV-4).
const MaxErrorBody = 512

// TransportError is an HTTP answer that is not a success: another 4xx at once,
// or a 429/5xx still failing after the DRV-4 retries. Cause: driver_error.
type TransportError struct {
	Kind   string // "openai", "anthropic"
	Status int    // the HTTP status
	Body   string // the first MaxErrorBody bytes of the body (CutBody)
	// URL and Rule explain a 404: the URL posted to, and the driver's
	// endpoint rule (what its endpoint is, where requests go).
	URL, Rule string
}

// Error is LOOP-19's reason: "<kind> endpoint answered HTTP <status>: <body>";
// a 404 adds the URL and the endpoint rule, since a wrong endpoint and an
// unknown model both answer it.
func (e *TransportError) Error() string {
	msg := fmt.Sprintf("%s endpoint answered HTTP %d: %s", e.Kind, e.Status, e.Body)
	if e.Status == http.StatusNotFound && e.URL != "" {
		msg += fmt.Sprintf(" (POST %s; a 404 names a model or an endpoint the server does not know: %s)", e.URL, e.Rule)
	}
	return msg
}

// RequestError is a request that got no HTTP answer (connection refused,
// reset, timeout), after the DRV-4 retries where they apply. Cause:
// driver_error.
type RequestError struct {
	Kind string
	Err  error
}

// Error is LOOP-19's reason: "<kind> request failed: <error>".
func (e *RequestError) Error() string { return fmt.Sprintf("%s request failed: %v", e.Kind, e.Err) }

// Unwrap returns the cause.
func (e *RequestError) Unwrap() error { return e.Err }

// ResponseError is a success answer whose body could not be read as the
// provider's reply. It matches ErrInvalidResponse. Cause: invalid_response.
type ResponseError struct {
	Kind string
	Err  error
}

// Error is LOOP-19's reason: "<kind> response could not be read: <error>".
func (e *ResponseError) Error() string {
	return fmt.Sprintf("%s response could not be read: %v", e.Kind, e.Err)
}

// Unwrap returns the cause.
func (e *ResponseError) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidResponse.
func (e *ResponseError) Is(target error) bool { return target == ErrInvalidResponse }

// CredentialError is an HTTP 401 (DRV-4), or a scripted turn's `status: 401`
// (DRV-7, Credential "none"). It matches ErrCredentialRejected. Cause:
// credential_rejected; the loop writes inference_credential with Credential
// and Status, then E-RUN-027.
type CredentialError struct {
	Kind       string
	Credential string // the environment variable NAME, "none" when there is none
	Status     int    // 401
}

// Error is E-RUN-027's message, the task_failed reason (LOOP-19).
func (e *CredentialError) Error() string { return diag.RunCredentialRejected(e.credential()).Msg }

// Diagnostic returns E-RUN-027 for this rejection.
func (e *CredentialError) Diagnostic() *diag.Diagnostic {
	return diag.RunCredentialRejected(e.credential()).WithErr(e)
}

func (e *CredentialError) credential() string {
	if e.Credential == "" {
		return "none"
	}
	return e.Credential
}

// Is reports whether target is ErrCredentialRejected.
func (e *CredentialError) Is(target error) bool { return target == ErrCredentialRejected }

// ScriptError is a scripted driver's failure (DRV-7): a turn's `error:` text,
// `no script rule matches the task`, `script exhausted after <n> turns`.
// Cause: driver_error; the reason is the text itself.
type ScriptError struct{ Reason string }

// Error returns the reason text.
func (e *ScriptError) Error() string { return e.Reason }

// Cause returns the task_failed cause for a driver error (LOOP-19):
// credential_rejected, invalid_response, driver_error, or internal for an
// error no driver type describes.
func Cause(err error) string {
	var (
		te *TransportError
		re *RequestError
		se *ScriptError
	)
	switch {
	case errors.Is(err, ErrCredentialRejected):
		return CauseCredentialRejected
	case errors.Is(err, ErrInvalidResponse):
		return CauseInvalidResponse
	case errors.As(err, &te), errors.As(err, &re), errors.As(err, &se):
		return CauseDriverError
	default:
		return CauseInternal
	}
}

// Reason returns the task_failed reason for a driver error (LOOP-19): the
// typed error's exact text; for any other error its Error string.
func Reason(err error) string {
	var (
		ce *CredentialError
		te *TransportError
		re *RequestError
		rs *ResponseError
		se *ScriptError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ce):
		return ce.Error()
	case errors.As(err, &te):
		return te.Error()
	case errors.As(err, &rs):
		return rs.Error()
	case errors.As(err, &re):
		return re.Error()
	case errors.As(err, &se):
		return se.Error()
	default:
		return err.Error()
	}
}

// CutBody returns the first MaxErrorBody bytes of body, dropping a trailing
// partial UTF-8 character so the reason stays valid JSON text (DRV-4).
func CutBody(body []byte) string {
	if len(body) <= MaxErrorBody {
		return string(body)
	}
	b := body[:MaxErrorBody]
	for range utf8.UTFMax - 1 {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size != 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return string(b)
}
