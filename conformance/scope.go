package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"

	"github.com/murmur-go/mur/a2a"
)

// probeParams are harmless params for each method a scope can guard: an
// invalid message, an unknown task, a read. None starts or changes anything.
// session/stop has none: only a token that must be refused it is sent it.
var probeParams = map[string]any{
	a2a.MethodSendMessage:          map[string]any{"message": map[string]any{}},
	a2a.MethodSendStreamingMessage: map[string]any{"message": map[string]any{}},
	a2a.MethodSubscribeToTask:      map[string]any{"id": unknownTaskID},
	a2a.MethodStreamWatch:          map[string]any{},
	a2a.MethodGetTask:              map[string]any{"id": unknownTaskID},
	a2a.MethodListTasks:            map[string]any{},
	a2a.MethodCancelTask:           map[string]any{"id": unknownTaskID},
	a2a.MethodGetExtendedAgentCard: map[string]any{},
	a2a.MethodSessionStop:          map[string]any{},
}

// streaming are the methods whose answer may be an event stream.
var streaming = []string{a2a.MethodSendStreamingMessage, a2a.MethodSubscribeToTask, a2a.MethodStreamWatch}

// bearer is the header set that sends tok instead of the door token.
func bearer(tok string) hdr { return hdr{"Authorization": "Bearer " + tok} }

// probe sends method its probe params under tok and returns the answer; an
// event stream the door opens is closed at once and read as a 200 with no
// body.
func (s *suite) probe(ctx context.Context, method, tok string) (*exchange, error) {
	if !slices.Contains(streaming, method) {
		return s.do(ctx, http.MethodPost, "/", request(s.nextID(), method, probeParams[method]), bearer(tok))
	}
	st, ex, err := s.openRaw(ctx, method, probeParams[method], bearer(tok))
	if st != nil {
		st.Close()
		return &exchange{status: http.StatusOK, header: st.resp.Header}, nil
	}
	return ex, err
}

// scopeRefusal is the AUTH-7 answer to credential on a method it lacks.
func scopeRefusal(credential, method string) refusal {
	return refusal{status: http.StatusForbidden, rfc: "insufficient_scope",
		challenge: `error="insufficient_scope", scope="` + method + `"`, code: "insufficient_scope",
		message: fmt.Sprintf("credential '%s' does not reach %s", credential, method)}
}

var scopeMessage = regexp.MustCompile(`^credential '([^']+)' does not reach (\S+)$`)

// scopedMethods are the methods auth.scoped probes: the A2A methods the card
// declares and the door serves, and stream/watch where the door lists it.
func (s *suite) scopedMethods() []string {
	ms := []string{a2a.MethodSendMessage, a2a.MethodGetTask, a2a.MethodListTasks, a2a.MethodCancelTask}
	if s.card.Capabilities.Streaming {
		ms = append(ms, a2a.MethodSendStreamingMessage, a2a.MethodSubscribeToTask)
	}
	if s.card.Capabilities.ExtendedAgentCard {
		ms = append(ms, a2a.MethodGetExtendedAgentCard)
	}
	if s.murmur {
		ms = append(ms, a2a.MethodStreamWatch)
	}
	return slices.DeleteFunc(ms, func(m string) bool { return !s.serves(m) })
}

// authScoped: AUTH-2..4, AUTH-7 — a credential that lacks a scope reaches
// the methods it holds and is refused each other 403 insufficient_scope
// (RFC 6750 §3.1). On a murmur door the refusal names the credential and the
// scope exactly, GetExtendedAgentCard needs no scope, and a scope limits
// methods, not tasks: the credential reads the tasks the door token started.
func authScoped(ctx context.Context, s *suite) error {
	tok := s.cfg.ScopedToken
	switch {
	case tok == "":
		return skipf("no scoped token was given (--token scoped=<token>, Config.ScopedToken)")
	case !s.requiresAuth():
		return skipf("the card declares no security requirement")
	}
	var reached, refused []string
	credential := ""
	for _, m := range s.scopedMethods() {
		ex, err := s.probe(ctx, m, tok)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		if ex.status == http.StatusOK {
			reached = append(reached, m)
			continue
		}
		if ex.status == http.StatusUnauthorized && !s.murmur {
			return failf("%s: HTTP 401 %s: the scoped token does not authenticate, or a missing scope is answered 401 (RFC 6750 §3.1: 403)", m, snippet(ex.body))
		}
		want := scopeRefusal(credential, m)
		if s.murmur {
			var body struct{ Message string }
			_ = json.Unmarshal(ex.body, &body)
			if sub := scopeMessage.FindStringSubmatch(body.Message); sub != nil && credential == "" {
				credential = sub[1]
				want = scopeRefusal(credential, m)
			}
		}
		if err := s.expectRefusal(ex, m+" with the scoped token", want); err != nil {
			return err
		}
		refused = append(refused, m)
	}
	if len(refused) == 0 {
		return skipf("the scoped token reached every method probed (%v); give one that lacks a scope among them", reached)
	}
	if !s.murmur {
		return nil
	}
	if slices.Contains(refused, a2a.MethodGetExtendedAgentCard) {
		return failf("GetExtendedAgentCard was refused the scoped token; door tokens need no scope for it (AUTH-3)")
	}
	return s.scopeSharesTasks(ctx, tok, reached)
}

// scopeSharesTasks checks AUTH-4 with the door token's ended task: a scoped
// credential that reaches GetTask reads it, one that reaches ListTasks sees
// as many tasks as the door token.
func (s *suite) scopeSharesTasks(ctx context.Context, tok string, reached []string) error {
	if s.cfg.Token == "" {
		return nil // no task of another credential to read
	}
	if slices.Contains(reached, a2a.MethodGetTask) {
		t, err := s.endedTask(ctx)
		if err != nil {
			return needs("an ended task", err)
		}
		a, err := s.call(ctx, a2a.MethodGetTask, map[string]any{"id": string(t.ID)}, bearer(tok))
		if err != nil {
			return err
		}
		got, err := s.taskResult(a, "GetTask with the scoped token")
		if err != nil {
			return fmt.Errorf("%w: a scope limits methods, not tasks (AUTH-4)", err)
		}
		if got.ID != t.ID {
			return failf("GetTask %s with the scoped token answered %s", t.ID, got.ID)
		}
	}
	if slices.Contains(reached, a2a.MethodListTasks) {
		all, err := s.listTotal(ctx)
		if err != nil {
			return err
		}
		a, err := s.call(ctx, a2a.MethodListTasks, map[string]any{}, bearer(tok))
		if err != nil {
			return err
		}
		res, err := a.ok()
		if err != nil {
			return fmt.Errorf("ListTasks with the scoped token: %w", err)
		}
		var r a2a.ListTasksResponse
		if err := json.Unmarshal(res, &r); err != nil || r.TotalSize != all {
			return failf("ListTasks with the scoped token: totalSize %d, the door token's %d: a scope limits methods, not tasks (AUTH-4)", r.TotalSize, all)
		}
	}
	return nil
}
