package door

import (
	"net/http"
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/task"
)

// checkCompletion is ORD-1 step 9 (PEER-5). A completion
// (x-murmur-task-origin: completion) addressed to another session is -31001;
// one on any method but SendMessage is -32601; any other is -31002, since no
// delegation awaits one in the first release.
func (s *Server) checkCompletion(r *http.Request, method string) error {
	if headerWord(r, a2a.HeaderTaskOrigin) != string(a2a.OriginCompletion) {
		return nil
	}
	if headerWord(r, a2a.HeaderCompletionSession) != s.cfg.SessionID {
		return a2a.NewError(a2a.ErrCompletionMisaddressed,
			"Completion misaddressed: it names a session other than the one answering here",
			map[string]string{"addressedSession": strings.TrimSpace(r.Header.Get(a2a.HeaderCompletionSession))})
	}
	if method != a2a.MethodSendMessage {
		return a2a.MethodNotFound()
	}
	md := map[string]string{}
	if d := strings.TrimSpace(r.Header.Get(a2a.HeaderDelegationID)); d != "" {
		md["delegationId"] = d
	}
	return a2a.NewError(a2a.ErrCompletionNotAwaited, "Completion not awaited: no delegation here waits for it", md)
}

// provenance is where a task started at the door comes from (PEER-4): origin
// peer only when the header says so, with the trust it names (anything but
// "trusted" is untrusted); every other request is origin event, untrusted.
// Completions never get here (step 9).
func provenance(r *http.Request) task.Provenance {
	p := task.Provenance{Origin: a2a.OriginEvent, Trust: a2a.TrustUntrusted, Source: "a2a",
		TraceParent: r.Header.Get("traceparent")}
	if headerWord(r, a2a.HeaderTaskOrigin) == string(a2a.OriginPeer) {
		p.Origin = a2a.OriginPeer
		if headerWord(r, a2a.HeaderTaskTrust) == string(a2a.TrustTrusted) {
			p.Trust = a2a.TrustTrusted
		}
	}
	return p
}
