package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// The AUTH-7 refusal sentences and PEER-2's body.
const (
	msgUnauthenticated = "this door requires Authorization: Bearer <token>"
	msgInvalidToken    = "the Authorization header does not carry a token this door accepts"
	bodyPeerRefused    = `{"error":"peer_not_accepted","message":"this capsule does not accept tasks from peer capsules"}`
)

// getTaskBody is a harmless request: GetTask on an id no door holds.
func (s *suite) getTaskBody() []byte {
	return request(s.nextID(), a2a.MethodGetTask, map[string]any{"id": unknownTaskID})
}

// unknownTaskID is a well-formed task id no door has minted.
const unknownTaskID = "tsk_00000000000070008000000000000000"

// httpNotFound: DOOR-2, DOOR-4 — an unrouted GET is 404; on a murmur door
// also other methods on /, unrouted REST paths and an empty body, each with
// an empty body (never 405).
func httpNotFound(ctx context.Context, s *suite) error {
	auth := hdr{}
	if s.cfg.Token != "" {
		auth["Authorization"] = "Bearer " + s.cfg.Token
	}
	ex, err := s.do(ctx, http.MethodGet, "/conformance/no-such-path", nil, auth)
	if err != nil {
		return err
	}
	if ex.status != http.StatusNotFound {
		return failf("GET /conformance/no-such-path: HTTP %d, want 404", ex.status)
	}
	if !s.murmur {
		return nil
	}
	cases := []struct {
		name, method, path string
		body               []byte
		h                  hdr
	}{
		{"GET /", http.MethodGet, "/", nil, auth},
		{"DELETE /", http.MethodDelete, "/", nil, auth},
		{"POST /message:nowhere", http.MethodPost, "/message:nowhere", s.getTaskBody(), nil},
		{"POST / with an empty body", http.MethodPost, "/", nil, nil},
	}
	for _, c := range cases {
		ex, err := s.do(ctx, c.method, c.path, c.body, c.h)
		if err != nil {
			return err
		}
		if ex.status != http.StatusNotFound || len(ex.body) != 0 {
			return failf("%s: HTTP %d %s, want 404 with an empty body (DOOR-4)", c.name, ex.status, snippet(ex.body))
		}
	}
	return nil
}

// rpcMediaType: A2A §9.1, §11.1 — a JSON-RPC body sent as
// application/a2a+json is read as application/json is; any other media type
// is -32005 in a JSON-RPC answer echoing the id (or, from a door that reads
// no such body, id null), never a bare HTTP refusal.
// JSON-RPC names application/json only, so another door may refuse
// application/a2a+json: the check asks it of a murmur door (DOOR-4).
func rpcMediaType(ctx context.Context, s *suite) error {
	if s.murmur {
		a, err := s.rpc(ctx, s.getTaskBody(), hdr{"Content-Type": "application/a2a+json"})
		if err != nil {
			return fmt.Errorf("POST / as application/a2a+json: %w", err)
		}
		if err := s.expectA2A(a, -32001, "TASK_NOT_FOUND", nil); err != nil {
			return fmt.Errorf("POST / as application/a2a+json (GetTask on an unknown id): %w", err)
		}
	}
	id := s.nextID()
	a, err := s.rpc(ctx, request(id, a2a.MethodGetTask, map[string]any{"id": unknownTaskID}), hdr{"Content-Type": "text/plain"})
	if err != nil {
		return fmt.Errorf("POST / as text/plain: %w", err)
	}
	if err := s.expectA2A(a, -32005, "CONTENT_TYPE_NOT_SUPPORTED", map[string]string{"mediaType": "text/plain"}); err != nil {
		return fmt.Errorf("POST / as text/plain: %w", err)
	}
	if !s.murmur && string(a.id) == "null" {
		return nil // a door that reads no body of another media type cannot know its id
	}
	return a.expectID(strconv.FormatInt(id, 10))
}

// httpTooLarge: DOOR-5 [OURS] — over 8 MiB is 413 with an empty body, before parsing.
func httpTooLarge(ctx context.Context, s *suite) error {
	if !s.murmur {
		return skipf("the 8 MiB limit is door.md's (DOOR-5), and the card declares no murmur door extension")
	}
	body := bytes.Repeat([]byte{' '}, 8<<20+1)
	ex, err := s.do(ctx, http.MethodPost, "/", body, nil)
	if err != nil {
		return err
	}
	if ex.status != http.StatusRequestEntityTooLarge || len(ex.body) != 0 {
		return failf("HTTP %d %s, want 413 with an empty body", ex.status, snippet(ex.body))
	}
	return nil
}

// httpMetrics: DOOR-2, GO-6 [OURS] — Prometheus text, no token.
func httpMetrics(ctx context.Context, s *suite) error {
	if !s.murmur {
		return skipf("/metrics is door.md's (GO-6), and the card declares no murmur door extension")
	}
	ex, err := s.do(ctx, http.MethodGet, "/metrics", nil, nil)
	if err != nil {
		return err
	}
	if ex.status != http.StatusOK || !strings.HasPrefix(ex.mediaType(), "text/plain") {
		return failf("HTTP %d Content-Type %q, want 200 text/plain", ex.status, ex.header.Get("Content-Type"))
	}
	if !bytes.Contains(ex.body, []byte("mur_door_requests_total")) {
		return failf("the metrics lack mur_door_requests_total (GO-6)")
	}
	return nil
}

// authSkip returns why auth checks skip, or "".
func (s *suite) authSkip() string {
	switch {
	case s.cfg.Token == "":
		return "no token was given"
	case !s.requiresAuth():
		return "the card declares no security requirement"
	}
	return ""
}

// refusal is what a check expects of an HTTP auth refusal.
type refusal struct {
	status int
	// rfc is the RFC 6750 §3.1 error attribute the Bearer challenge SHOULD
	// carry ("" when the request lacked a token or used another scheme, where
	// it SHOULD carry none).
	rfc string
	// On a murmur door, AUTH-7's exact answer: the challenge holds challenge
	// after `Bearer realm="<name>"`, the body is {"error":code,"message":message}.
	challenge, code, message string
}

// expectRefusal checks an auth refusal. Every door must answer the expected
// status (another 401 or 403 only warns: RFC 6750 §3.1 says SHOULD) with a
// Bearer challenge (RFC 6750 §3, RFC 9110 §11.6.1: MUST); a challenge that
// names no error, or names one where none belongs, only warns. A murmur door
// must answer AUTH-7 exactly.
func (s *suite) expectRefusal(ex *exchange, name string, want refusal) error {
	www := ex.header.Get("Www-Authenticate")
	if s.murmur {
		if ex.status != want.status {
			return failf("%s: HTTP %d %s, want %d", name, ex.status, snippet(ex.body), want.status)
		}
		prefix := `Bearer realm="` + s.card.Name + `"`
		if !strings.HasPrefix(www, prefix) || !strings.Contains(www, want.challenge) {
			return failf("%s: www-authenticate %q, want %s%s (AUTH-7)", name, www, prefix, cond(want.challenge != "", ", "+want.challenge, ""))
		}
		if ex.mediaType() != "application/json" {
			return failf("%s: Content-Type %q, want application/json (AUTH-7)", name, ex.header.Get("Content-Type"))
		}
		var body map[string]string
		if err := json.Unmarshal(ex.body, &body); err != nil || len(body) != 2 || body["error"] != want.code || body["message"] != want.message {
			return failf(`%s: body %s, want {"error":%q,"message":%q} (AUTH-7)`, name, snippet(ex.body), want.code, want.message)
		}
		return nil
	}
	switch {
	case ex.status == want.status:
	case ex.status == http.StatusUnauthorized || ex.status == http.StatusForbidden:
		s.warnf("%s: HTTP %d, which RFC 6750 §3.1 says should be %d", name, ex.status, want.status)
	default:
		return failf("%s: HTTP %d %s, want %d", name, ex.status, snippet(ex.body), want.status)
	}
	if !strings.HasPrefix(strings.ToLower(www), "bearer") {
		return failf("%s: www-authenticate %q, want a Bearer challenge (RFC 6750 §3)", name, www)
	}
	got := challengeError(www)
	switch {
	case want.rfc != "" && got != want.rfc:
		s.warnf(`%s: www-authenticate %q names no error=%q, which RFC 6750 §3.1 says it should`, name, www, want.rfc)
	case want.rfc == "" && got != "":
		s.warnf(`%s: www-authenticate %q names error=%q, which RFC 6750 §3.1 says it should not for a request without a Bearer token`, name, www, got)
	}
	return nil
}

// challengeError reads the error attribute of a Bearer challenge, "" when none.
func challengeError(www string) string {
	_, rest, ok := strings.Cut(www, "error=")
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(strings.TrimPrefix(rest, `"`), `"`)
	v, _, _ = strings.Cut(v, ",")
	return strings.TrimSpace(v)
}

func cond(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

// The AUTH-7 refusals a bad request earns.
var (
	refusedMissing = refusal{status: http.StatusUnauthorized, code: "unauthenticated", message: msgUnauthenticated}
	refusedInvalid = refusal{status: http.StatusUnauthorized, rfc: "invalid_token", challenge: `error="invalid_token"`,
		code: "invalid_token", message: msgInvalidToken}
)

// authMissing: AUTH-7, ORD-2 — no Authorization header is 401 before path or
// method are read.
func authMissing(ctx context.Context, s *suite) error {
	if why := s.authSkip(); why != "" {
		return skipf("%s", why)
	}
	ex, err := s.do(ctx, http.MethodPost, "/", s.getTaskBody(), hdr{"Authorization": ""})
	if err != nil {
		return err
	}
	if err := s.expectRefusal(ex, "POST /", refusedMissing); err != nil {
		return err
	}
	if !s.murmur {
		return nil
	}
	if www := ex.header.Get("Www-Authenticate"); strings.Contains(www, "error=") {
		return failf("www-authenticate %q names an error; a missing token is not one (AUTH-7)", www)
	}
	ex, err = s.do(ctx, http.MethodGet, "/conformance/no-such-path", nil, nil)
	if err != nil {
		return err
	}
	return s.expectRefusal(ex, "GET /conformance/no-such-path (ORD-2)", refusedMissing)
}

// authInvalid: AUTH-7 — an unknown or altered token, another scheme, or (on a
// murmur door) two Authorization headers are 401 invalid_token. RFC 6750 asks
// no error attribute for another scheme; door.md AUTH-7 answers invalid_token.
func authInvalid(ctx context.Context, s *suite) error {
	if why := s.authSkip(); why != "" {
		return skipf("%s", why)
	}
	for _, bad := range []struct{ name, header string }{
		{"an altered Bearer token", "Bearer " + s.cfg.Token + "x"},
		{"an unknown Bearer token", "Bearer conformance-unknown-token"},
		{"the token under Basic", "Basic " + s.cfg.Token},
	} {
		ex, err := s.do(ctx, http.MethodPost, "/", s.getTaskBody(), hdr{"Authorization": bad.header})
		if err != nil {
			return err
		}
		want := refusedInvalid
		if !strings.HasPrefix(bad.header, "Bearer ") {
			want.rfc = ""
		}
		if err := s.expectRefusal(ex, bad.name, want); err != nil {
			return err
		}
	}
	if !s.murmur {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/", bytes.NewReader(s.getTaskBody()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(a2a.HeaderVersion, a2a.ProtocolVersion)
	req.Header.Add("Authorization", "Bearer "+s.cfg.Token)
	req.Header.Add("Authorization", "Bearer "+s.cfg.Token)
	ex, err := s.send(req)
	if err != nil {
		return err
	}
	return s.expectRefusal(ex, "two Authorization headers", refusedInvalid)
}

// authPublic: AUTH-1 — a public murmur door ignores Authorization entirely.
func authPublic(ctx context.Context, s *suite) error {
	if !s.murmur || s.requiresAuth() {
		return skipf("only a public murmur door promises to ignore Authorization (AUTH-1)")
	}
	a, err := s.rpc(ctx, s.getTaskBody(), hdr{"Authorization": "Bearer conformance-unknown-token"})
	if err != nil {
		return failf("with a stray bearer token: %v", err)
	}
	return s.expectA2A(a, -32001, "TASK_NOT_FOUND", nil)
}
