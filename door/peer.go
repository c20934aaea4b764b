package door

import (
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/propagation"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// checkCompletion is ORD-1 step 9 (PEER-5). A completion
// (x-murmur-task-origin: completion) addressed to another session is -31001;
// one on any method but SendMessage is -32601; one that no live delegation
// of this session awaits — or that a completion token minted for another
// delegation carries — is -31002. Otherwise the completion is handed to its
// delegation and answered at once with a message (tools.md DLG-7): handled
// is true and nothing else runs. Other requests pass (handled false, nil).
func (s *Server) checkCompletion(w http.ResponseWriter, r *http.Request, env *envelope) (handled bool, err error) {
	// A completion token's grant reaches no method: anything but its
	// completion is refused at step 11.
	g := exchangeOf(r).grant
	if headerWord(r, a2a.HeaderTaskOrigin) != string(a2a.OriginCompletion) {
		return false, nil
	}
	if addressed := strings.TrimSpace(r.Header.Get(a2a.HeaderCompletionSession)); strings.ToLower(addressed) != s.cfg.SessionID {
		return false, a2a.NewError(a2a.ErrCompletionMisaddressed, completionMisaddressed(addressed),
			map[string]string{"addressedSession": addressed})
	}
	if env.method != a2a.MethodSendMessage {
		return false, a2a.MethodNotFound()
	}
	md := map[string]string{}
	id := headerWord(r, a2a.HeaderDelegationID)
	if id != "" {
		md["delegationId"] = id
	}
	notAwaited := a2a.NewError(a2a.ErrCompletionNotAwaited, completionNotAwaited, md)
	if id == "" || s.cfg.Completions == nil || g != nil && g.delegation != "" && g.delegation != id {
		return false, notAwaited
	}
	sp, err := readSend(a2a.MethodSendMessage, env.params)
	if err != nil {
		return false, err
	}
	if !s.cfg.Completions.Complete(id, sp.message) {
		return false, notAwaited
	}
	reply := a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleAgent, ContextID: sp.message.ContextID,
		Parts: []a2a.Part{a2a.TextPart(completionReceived(id))}}
	s.answer(w, r, env.id, resultOf(a2a.SendMessageResponse{Message: &reply}))
	return true, nil
}

// completionMisaddressed is tools.md DLG-7's error for a completion
// addressed to another session (PEER-5's -31001).
func completionMisaddressed(addressed string) string {
	return "completion is addressed to session " + addressed + ", which is not the session running here"
}

// completionNotAwaited is PEER-5's -31002 message.
const completionNotAwaited = "Completion not awaited: no delegation here waits for it"

// completionReceived is the text of a matched completion's answer (tools.md
// DLG-7).
func completionReceived(delegationID string) string {
	return "completion received for delegation " + delegationID
}

// provenance is where a task started at the door comes from (PEER-4): origin
// peer only when the header says so, with the trust it names (anything but
// "trusted" is untrusted); every other request is origin event, untrusted.
// Completions never get here (step 9).
func provenance(r *http.Request) tasktable.Provenance {
	p := tasktable.Provenance{Origin: a2a.OriginEvent, Trust: a2a.TrustUntrusted, Source: "a2a"}
	p.TraceParent, p.TraceState = traceContext(r)
	if headerWord(r, a2a.HeaderTaskOrigin) == string(a2a.OriginPeer) {
		p.Origin = a2a.OriginPeer
		if headerWord(r, a2a.HeaderTaskTrust) == string(a2a.TrustTrusted) {
			p.Trust = a2a.TrustTrusted
		}
	}
	return p
}

// traceContext is the caller's W3C trace context (OTEL-1): traceparent and
// tracestate as sent, both "" unless traceparent is a valid W3C value (one
// that is not is ignored, as W3C Trace Context says), so the task's span is
// parented on it and a2a_task_received records it.
func traceContext(r *http.Request) (parent, state string) {
	ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	sc := oteltrace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return "", ""
	}
	return strings.TrimSpace(r.Header.Get("traceparent")), sc.TraceState().String()
}
