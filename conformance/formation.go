package conformance

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// memberToken is Config.MemberToken split into its JWT segments, with the
// claims the checks read. The suite never verifies it: the door does.
type memberToken struct {
	raw                  string
	header, payload, sig string // its base64url segments
	subject              string // the calling member (sub)
}

// parseMemberToken reads a formation member token (door.md GO-5): three
// base64url segments whose claims carry sub and the member scope.
func parseMemberToken(raw string) (*memberToken, error) {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("the member token is not a JWT of three segments (GO-5)")
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Sub   string `json:"sub"`
		Scope string `json:"scope"`
	}
	if err != nil || json.Unmarshal(b, &claims) != nil || claims.Sub == "" {
		return nil, fmt.Errorf("the member token's claims do not decode to an object with a sub (GO-5)")
	}
	if claims.Scope != a2a.MemberTokenScope {
		return nil, fmt.Errorf("the token's scope is %q, not a member token's %q (GO-5)", claims.Scope, a2a.MemberTokenScope)
	}
	return &memberToken{raw: raw, header: parts[0], payload: parts[1], sig: parts[2], subject: claims.Sub}, nil
}

// member returns the parsed member token, or why the formation checks skip.
func (s *suite) member() (*memberToken, error) {
	switch {
	case s.cfg.MemberToken == "":
		return nil, skipf("no member token was given (--token member=<token>, Config.MemberToken)")
	case !s.murmur:
		return nil, skipf("formation tokens are door.md's (AUTH-6), and the card declares no murmur door extension")
	case !s.requiresAuth():
		return nil, skipf("a public door ignores Authorization, formation tokens too (AUTH-1)")
	}
	m, err := parseMemberToken(s.cfg.MemberToken)
	if err != nil {
		return nil, skipf("%v", err)
	}
	return m, nil
}

// formationScope: AUTH-6 — a member token reaches exactly SendMessage,
// GetTask, ListTasks, CancelTask and SubscribeToTask; each other method the
// door lists is 403 insufficient_scope naming credential member:<sub>.
func formationScope(ctx context.Context, s *suite) error {
	m, err := s.member()
	if err != nil {
		return err
	}
	for _, method := range s.doorMethods() {
		if _, ok := probeParams[method]; !ok {
			continue
		}
		ex, err := s.probe(ctx, method, m.raw)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if slices.Contains(a2a.MemberTokenMethods, method) {
			if ex.status != http.StatusOK {
				return failf("%s with the member token: HTTP %d %s, want it served (AUTH-6)", method, ex.status, snippet(ex.body))
			}
			continue
		}
		if err := s.expectRefusal(ex, method+" with the member token", scopeRefusal("member:"+m.subject, method)); err != nil {
			return fmt.Errorf("%w (AUTH-6: a member token reaches five methods)", err)
		}
	}
	return nil
}

// formationForged: GO-5 steps 1–4 — the member token with its signature or
// claims altered, unsigned (alg none) or signed HS256 is 401 invalid_token,
// while the token itself is let in.
func formationForged(ctx context.Context, s *suite) error {
	m, err := s.member()
	if err != nil {
		return err
	}
	ex, err := s.do(ctx, http.MethodPost, "/", s.getTaskBody(), bearer(m.raw))
	if err != nil {
		return err
	}
	if ex.status != http.StatusOK {
		return failf("GetTask with the member token itself: HTTP %d %s, want it let in (AUTH-6)", ex.status, snippet(ex.body))
	}
	for _, f := range m.forgeries() {
		ex, err := s.do(ctx, http.MethodPost, "/", s.getTaskBody(), bearer(f.token))
		if err != nil {
			return err
		}
		if err := s.expectRefusal(ex, "the member token "+f.name, refusedInvalid); err != nil {
			return fmt.Errorf("%w (GO-5)", err)
		}
	}
	return nil
}

type forgery struct{ name, token string }

// forgeries are tokens no launcher minted, each made from the member token.
func (m *memberToken) forgeries() []forgery {
	sig := []byte(m.sig)
	i := len(sig) / 2
	sig[i] = map[bool]byte{true: 'B', false: 'A'}[sig[i] == 'A']
	b, _ := base64.RawURLEncoding.DecodeString(m.payload)
	var claims map[string]any
	_ = json.Unmarshal(b, &claims)
	claims["sub"] = m.subject + "-forged"
	other, _ := json.Marshal(claims)
	payload := base64.RawURLEncoding.EncodeToString(other)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	hs := enc(`{"alg":"HS256","typ":"JWT"}`) + "." + m.payload
	mac := hmac.New(sha256.New, []byte("conformance"))
	mac.Write([]byte(hs))
	return []forgery{
		{"with an altered signature", m.header + "." + m.payload + "." + string(sig)},
		{"with its sub altered", m.header + "." + payload + "." + m.sig},
		{"unsigned (alg none)", enc(`{"alg":"none","typ":"JWT"}`) + "." + m.payload + "."},
		{"signed HS256", hs + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))},
	}
}

// formationOwnTasks: AUTH-6 — a member token sees only the tasks its member
// started: another's task is -32001 to GetTask, CancelTask, SubscribeToTask
// and a SendMessage naming it, and ListTasks leaves it out; its own task it
// reads, lists and cancels; the door token reads it too (AUTH-4).
func formationOwnTasks(ctx context.Context, s *suite) error {
	m, err := s.member()
	if err != nil {
		return err
	}
	if s.cfg.Token == "" {
		return skipf("needs a door token too (--token <token>, Config.Token), to start a task that is not the member's")
	}
	other, err := s.endedTask(ctx)
	if err != nil {
		return needs("an ended task", err)
	}
	if err := s.memberBlind(ctx, m, other); err != nil {
		return err
	}
	own, err := s.sendTask(ctx, s.sendParams(s.cfg.TaskText, true), bearer(m.raw))
	if err != nil {
		return err
	}
	a, err := s.call(ctx, a2a.MethodGetTask, map[string]any{"id": string(own.ID)}, bearer(m.raw))
	if err != nil {
		return err
	}
	if _, err := s.taskResult(a, "GetTask of its own task with the member token"); err != nil {
		return err
	}
	listed, err := s.memberList(ctx, m)
	if err != nil {
		return err
	}
	if !slices.Contains(listed, own.ID) || slices.Contains(listed, other.ID) {
		return failf("ListTasks with the member token lists %v, want its own task %s and not %s (AUTH-6)", listed, own.ID, other.ID)
	}
	if got, err := s.getTask(ctx, own.ID, nil); err != nil {
		return fmt.Errorf("the door token reading the member's task: %w (AUTH-4)", err)
	} else if got.ID != own.ID {
		return failf("GetTask %s with the door token answered %s", own.ID, got.ID)
	}
	a, err = s.call(ctx, a2a.MethodCancelTask, map[string]any{"id": string(own.ID)}, bearer(m.raw))
	if err != nil {
		return err
	}
	if a.err != nil && *a.err.Code == -32002 {
		return nil // it ended first
	}
	c, err := s.taskResult(a, "CancelTask of its own task with the member token")
	if err != nil {
		return err
	}
	if c.Status.State != a2a.TaskStateCanceled {
		return failf("CancelTask of its own task answered %s, want TASK_STATE_CANCELED", c.Status.State)
	}
	return nil
}

// memberBlind checks that every way of naming another's task reads it as
// unknown to the member token.
func (s *suite) memberBlind(ctx context.Context, m *memberToken, other *a2a.Task) error {
	md := map[string]string{"taskId": string(other.ID)}
	for _, method := range []string{a2a.MethodGetTask, a2a.MethodCancelTask} {
		a, err := s.call(ctx, method, map[string]any{"id": string(other.ID)}, bearer(m.raw))
		if err != nil {
			return err
		}
		if err := s.expectA2A(a, -32001, "TASK_NOT_FOUND", md); err != nil {
			return fmt.Errorf("%s of another's task with the member token: %w (AUTH-6)", method, err)
		}
	}
	msg := message(s.cfg.TaskText)
	msg["taskId"] = string(other.ID)
	a, err := s.call(ctx, a2a.MethodSendMessage, map[string]any{"message": msg}, bearer(m.raw))
	if err != nil {
		return err
	}
	if err := s.expectA2A(a, -32001, "TASK_NOT_FOUND", md); err != nil {
		return fmt.Errorf("SendMessage naming another's task with the member token: %w (AUTH-6)", err)
	}
	if !s.card.Capabilities.Streaming || !s.serves(a2a.MethodSubscribeToTask) {
		return nil
	}
	st, a, err := s.openStream(ctx, a2a.MethodSubscribeToTask, map[string]any{"id": string(other.ID)}, bearer(m.raw))
	if err != nil {
		return err
	}
	if st != nil {
		st.Close()
		return failf("SubscribeToTask of another's task with the member token opened a stream, want -32001 (AUTH-6)")
	}
	if err := s.expectA2A(a, -32001, "TASK_NOT_FOUND", md); err != nil {
		return fmt.Errorf("SubscribeToTask of another's task with the member token: %w (AUTH-6)", err)
	}
	return nil
}

// memberList returns the ids ListTasks shows the member token (its first 100).
func (s *suite) memberList(ctx context.Context, m *memberToken) ([]a2a.TaskID, error) {
	a, err := s.call(ctx, a2a.MethodListTasks, map[string]any{"pageSize": 100}, bearer(m.raw))
	if err != nil {
		return nil, err
	}
	res, err := a.ok()
	if err != nil {
		return nil, fmt.Errorf("ListTasks with the member token: %w", err)
	}
	var r a2a.ListTasksResponse
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, failf("ListTasks result %s: %v", snippet(res), err)
	}
	var ids []a2a.TaskID
	for _, t := range r.Tasks {
		ids = append(ids, t.ID)
	}
	return ids, nil
}
