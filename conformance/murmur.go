package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// murmurMethods: CARD-5 — every listed method is served; every other one of
// the nine is -32601, but for CARD-5's three exceptions (-32004).
func murmurMethods(ctx context.Context, s *suite) error {
	if !s.murmur {
		return skipf("the card declares no murmur door extension")
	}
	// Probes that start nothing: invalid params, unknown ids, reads.
	probes := map[string]any{
		a2a.MethodSendMessage:          map[string]any{"message": map[string]any{}},
		a2a.MethodSendStreamingMessage: map[string]any{"message": map[string]any{}},
		a2a.MethodSubscribeToTask:      map[string]any{"id": unknownTaskID},
		a2a.MethodGetTask:              map[string]any{"id": unknownTaskID},
		a2a.MethodListTasks:            map[string]any{},
		a2a.MethodCancelTask:           map[string]any{"id": unknownTaskID},
		a2a.MethodGetExtendedAgentCard: map[string]any{},
	}
	for _, m := range append(slices.Clone(methodsAccepting), a2a.MethodGetExtendedAgentCard) {
		p, probed := probes[m]
		if !probed {
			continue // stream/watch and session/stop have checks of their own
		}
		var a *rpcAnswer
		var err error
		if m == a2a.MethodSendStreamingMessage || m == a2a.MethodSubscribeToTask {
			var st *stream
			st, a, err = s.openStream(ctx, m, p, nil)
			if st != nil {
				st.Close()
				return failf("%s with params %s opened a stream, want a refusal", m, jsonOf(p))
			}
		} else {
			a, err = s.call(ctx, m, p, nil)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		listed := s.serves(m)
		notFound := a.err != nil && *a.err.Code == -32601
		switch {
		case listed && notFound:
			return failf("%s is listed but answered -32601", m)
		case listed:
		case m == a2a.MethodGetExtendedAgentCard || m == a2a.MethodSendStreamingMessage || m == a2a.MethodSubscribeToTask:
			if err := s.expectA2A(a, -32004, "UNSUPPORTED_OPERATION", nil); err != nil {
				return fmt.Errorf("%s is not listed: %w (CARD-5)", m, err)
			}
		default:
			if err := s.expectStandard(a, -32601, "Method not found"); err != nil {
				return fmt.Errorf("%s is not listed: %w", m, err)
			}
		}
	}
	return nil
}

// murmurPeerConsent: PEER-1, PEER-2, ORD-1 step 3.
func murmurPeerConsent(ctx context.Context, s *suite) error {
	if !s.murmur {
		return skipf("the card declares no murmur door extension")
	}
	if accept, _ := s.card.Extension(a2a.ExtensionDoor).Params["peerTasks"].(bool); accept {
		a, err := s.rpc(ctx, s.getTaskBody(), hdr{a2a.HeaderTaskOrigin: "peer"})
		if err != nil {
			return fmt.Errorf("a peer request to a door that accepts peers: %w", err)
		}
		return s.expectA2A(a, -32001, "TASK_NOT_FOUND", nil)
	}
	for _, c := range []struct {
		name, method, path, origin string
		body                       []byte
	}{
		{"POST / GetTask", http.MethodPost, "/", "peer", s.getTaskBody()},
		{"POST / SendMessage", http.MethodPost, "/", " PEER ", request(1, a2a.MethodSendMessage, s.sendParams(s.cfg.TaskText, true))},
		{"GET /conformance/no-such-path", http.MethodGet, "/conformance/no-such-path", "Peer", nil},
	} {
		h := hdr{a2a.HeaderTaskOrigin: c.origin}
		if c.method == http.MethodGet && s.cfg.Token != "" {
			h["Authorization"] = "Bearer " + s.cfg.Token
		}
		ex, err := s.do(ctx, c.method, c.path, c.body, h)
		if err != nil {
			return err
		}
		if ex.status != http.StatusForbidden || string(ex.body) != bodyPeerRefused || ex.mediaType() != "application/json" {
			return failf("%s with origin %q: HTTP %d %s, want 403 %s (PEER-2)", c.name, c.origin, ex.status, snippet(ex.body), bodyPeerRefused)
		}
		if www := ex.header.Get("Www-Authenticate"); www != "" {
			return failf("%s: www-authenticate %q on a consent refusal, want none (PEER-2)", c.name, www)
		}
	}
	return nil
}

// murmurForgetSession: PEER-6, ORD-1 step 12.
func murmurForgetSession(ctx context.Context, s *suite) error {
	if !s.murmur || !s.serves(a2a.MethodSendMessage) {
		return skipf("only a murmur door that serves SendMessage reads x-murmur-forget-session")
	}
	before, err := s.listTotal(ctx)
	if err != nil {
		return err
	}
	for _, v := range []string{"true", " TRUE "} {
		a, err := s.call(ctx, a2a.MethodSendMessage, s.sendParams(s.cfg.TaskText, true), hdr{a2a.HeaderForgetSession: v})
		if err != nil {
			return err
		}
		if err := s.expectStandard(a, -32602, ""); err != nil {
			return fmt.Errorf("x-murmur-forget-session %q: %w", v, err)
		}
	}
	if s.serves(a2a.MethodSendStreamingMessage) {
		st, a, err := s.openStream(ctx, a2a.MethodSendStreamingMessage, s.sendParams(s.cfg.TaskText, false), hdr{a2a.HeaderForgetSession: "true"})
		if err != nil {
			return err
		}
		if st != nil {
			st.Close()
			return failf("SendStreamingMessage with x-murmur-forget-session opened a stream, want -32602")
		}
		if err := s.expectStandard(a, -32602, ""); err != nil {
			return fmt.Errorf("SendStreamingMessage: %w", err)
		}
	}
	after, err := s.listTotal(ctx)
	if err != nil {
		return err
	}
	if after != before {
		return failf("ListTasks totalSize went from %d to %d: a refused request started a task", before, after)
	}
	return nil
}

// murmurCompletion: PEER-5, ORD-1 step 9 — no delegation in the first
// release, so every completion is misaddressed or not awaited.
func murmurCompletion(ctx context.Context, s *suite) error {
	if !s.murmur {
		return skipf("the card declares no murmur door extension")
	}
	for _, sent := range []string{"ses_conformance", ""} {
		h := hdr{a2a.HeaderTaskOrigin: "completion"}
		if sent != "" {
			h[a2a.HeaderCompletionSession] = sent
		}
		a, err := s.call(ctx, a2a.MethodSendMessage, s.sendParams(s.cfg.TaskText, true), h)
		if err != nil {
			return err
		}
		if err := s.expectInfo(a, -31001, "COMPLETION_MISADDRESSED", a2a.DomainMurmur, map[string]string{"addressedSession": sent}); err != nil {
			return fmt.Errorf("completion addressed to %q: %w", sent, err)
		}
	}
	sid, err := s.sessionID(ctx)
	if err != nil {
		return err
	}
	if sid == "" {
		return nil // the session id is on the extended card, which needs a token
	}
	h := hdr{a2a.HeaderTaskOrigin: "completion", a2a.HeaderCompletionSession: sid, a2a.HeaderDelegationID: "dlg-conformance"}
	a, err := s.call(ctx, a2a.MethodGetTask, map[string]any{"id": unknownTaskID}, h)
	if err != nil {
		return err
	}
	if err := s.expectStandard(a, -32601, ""); err != nil {
		return fmt.Errorf("a completion on GetTask: %w", err)
	}
	a, err = s.call(ctx, a2a.MethodSendMessage, s.sendParams(s.cfg.TaskText, true), h)
	if err != nil {
		return err
	}
	if err := s.expectInfo(a, -31002, "COMPLETION_NOT_AWAITED", a2a.DomainMurmur, map[string]string{"delegationId": "dlg-conformance"}); err != nil {
		return fmt.Errorf("a completion addressed to this session: %w", err)
	}
	return nil
}

// sessionID reads the capsule extension's sessionId: from the public card, or
// with a token from the extended card. "" when neither is at hand.
func (s *suite) sessionID(ctx context.Context) (string, error) {
	card := s.card
	if card.Extension(a2a.ExtensionCapsule) == nil {
		if s.cfg.Token == "" || !s.card.Capabilities.ExtendedAgentCard {
			return "", nil
		}
		a, err := s.call(ctx, a2a.MethodGetExtendedAgentCard, map[string]any{}, nil)
		if err != nil {
			return "", fmt.Errorf("GetExtendedAgentCard: %w", err)
		}
		res, err := a.ok()
		if err != nil {
			return "", fmt.Errorf("GetExtendedAgentCard: %w", err)
		}
		var c a2a.AgentCard
		if err := json.Unmarshal(res, &c); err != nil {
			return "", failf("GetExtendedAgentCard result %s: %v", snippet(res), err)
		}
		card = &c
	}
	ext := card.Extension(a2a.ExtensionCapsule)
	if ext == nil {
		return "", nil
	}
	sid, _ := ext.Params["sessionId"].(string)
	return sid, nil
}

// murmurSessionStop: METH-STOP-1 — runs last: it cancels every live task.
// The tasks live before the call (a task of its own, SlowTaskText's when
// configured, and every live task ListTasks shows) must all have ended after
// it; each task it lists as canceled must read CANCELED; a second call
// cancels nothing.
func murmurSessionStop(ctx context.Context, s *suite) error {
	if !s.murmur || !s.serves(a2a.MethodSessionStop) {
		return skipf("the card's door extension does not list session/stop")
	}
	var live *a2a.Task
	slow := false
	if s.serves(a2a.MethodSendMessage) {
		t, isSlow, err := s.liveTask(ctx)
		var se *skipError
		if err != nil && !errors.As(err, &se) {
			return err
		}
		live, slow = t, isSlow
	}
	before, err := s.liveTasks(ctx)
	if err != nil {
		return err
	}
	if live != nil && !slices.Contains(before, live.ID) {
		before = append(before, live.ID)
	}
	r, err := s.stop(ctx)
	if err != nil {
		return err
	}
	if sid, err := s.sessionID(ctx); err == nil && sid != "" && r.SessionID != sid {
		return failf("session_id %q, want the capsule extension's %q", r.SessionID, sid)
	}
	if slow && !slices.Contains(r.Canceled, live.ID) {
		return failf("canceled %v lacks the live task %s", r.Canceled, live.ID)
	}
	for _, id := range r.Canceled {
		got, err := s.getTask(ctx, id, nil)
		if err != nil {
			return fmt.Errorf("a task session/stop canceled: %w", err)
		}
		if got.Status.State != a2a.TaskStateCanceled {
			return failf("after session/stop task %s reads %s, want TASK_STATE_CANCELED", id, got.Status.State)
		}
	}
	for _, id := range before {
		got, err := s.getTask(ctx, id, nil)
		if err != nil {
			return fmt.Errorf("a task live before session/stop: %w", err)
		}
		if st := got.Status.State; !st.Terminal() {
			return failf("after session/stop task %s is still %s, want every live task canceled", id, st)
		}
	}
	again, err := s.stop(ctx)
	if err != nil {
		return fmt.Errorf("a second session/stop: %w", err)
	}
	if len(again.Canceled) != 0 {
		return failf("a second session/stop canceled %v, want [] (only tasks this call moved)", again.Canceled)
	}
	return nil
}

// liveTasks lists the ids of the tasks ListTasks shows SUBMITTED, WORKING or
// INPUT_REQUIRED (its first 100).
func (s *suite) liveTasks(ctx context.Context) ([]a2a.TaskID, error) {
	r, err := s.list(ctx, map[string]any{"pageSize": 100})
	if err != nil {
		return nil, err
	}
	var ids []a2a.TaskID
	for _, t := range r.Tasks {
		if !t.Status.State.Terminal() {
			ids = append(ids, t.ID)
		}
	}
	return ids, nil
}

// stop calls session/stop and checks its result's shape.
func (s *suite) stop(ctx context.Context) (*a2a.StopSessionResult, error) {
	a, err := s.call(ctx, a2a.MethodSessionStop, map[string]any{}, nil)
	if err != nil {
		return nil, err
	}
	res, err := a.ok()
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(res, &m); err != nil {
		return nil, failf("result %s is not an object", snippet(res))
	}
	if err := onlyKeys(m, "session_id", "canceled", "residue"); err != nil {
		return nil, failf("result %s: %v (METH-STOP-1)", snippet(res), err)
	}
	var r a2a.StopSessionResult
	if err := json.Unmarshal(res, &r); err != nil || r.Canceled == nil || r.Residue == nil {
		return nil, failf("result %s, want session_id a string, canceled and residue arrays", snippet(res))
	}
	if h, ok := strings.CutPrefix(r.SessionID, a2a.PrefixSession); !ok || !a2a.IsHex32(h) {
		return nil, failf("session_id %q, want ses_<32 hex>", r.SessionID)
	}
	if !slices.IsSorted(r.Canceled) {
		return nil, failf("canceled %v is not sorted (METH-STOP-1)", r.Canceled)
	}
	return &r, nil
}
