package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
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
// also other methods on /, other content types, REST paths and an empty body,
// each with an empty body (never 405).
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
		{"POST / as text/plain", http.MethodPost, "/", s.getTaskBody(), hdr{"Content-Type": "text/plain"}},
		{"POST / as application/a2a+json", http.MethodPost, "/", s.getTaskBody(), hdr{"Content-Type": "application/a2a+json"}},
		{"POST /message:send", http.MethodPost, "/message:send", s.getTaskBody(), nil},
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

// expectRefusal checks an AUTH-7 refusal: status, a Bearer challenge holding
// wantErr (when non-empty), and on a murmur door the exact JSON body.
func (s *suite) expectRefusal(ex *exchange, name string, status int, challenge, code, message string) error {
	if ex.status != status {
		return failf("%s: HTTP %d %s, want %d", name, ex.status, snippet(ex.body), status)
	}
	www := ex.header.Get("Www-Authenticate")
	if !strings.HasPrefix(strings.ToLower(www), "bearer") || challenge != "" && !strings.Contains(www, challenge) {
		return failf("%s: www-authenticate %q, want a Bearer challenge with %s", name, www, challenge)
	}
	if !s.murmur {
		return nil
	}
	if want := `Bearer realm="` + s.card.Name + `"`; !strings.HasPrefix(www, want) {
		return failf("%s: www-authenticate %q, want it to start %s (AUTH-7)", name, www, want)
	}
	if ex.mediaType() != "application/json" {
		return failf("%s: Content-Type %q, want application/json (AUTH-7)", name, ex.header.Get("Content-Type"))
	}
	var body map[string]string
	if err := json.Unmarshal(ex.body, &body); err != nil || len(body) != 2 || body["error"] != code || body["message"] != message {
		return failf(`%s: body %s, want {"error":%q,"message":%q} (AUTH-7)`, name, snippet(ex.body), code, message)
	}
	return nil
}

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
	if err := s.expectRefusal(ex, "POST /", http.StatusUnauthorized, "", "unauthenticated", msgUnauthenticated); err != nil {
		return err
	}
	if strings.Contains(ex.header.Get("Www-Authenticate"), "error=") {
		return failf("www-authenticate %q names an error; a missing token is not one (AUTH-7)", ex.header.Get("Www-Authenticate"))
	}
	if !s.murmur {
		return nil
	}
	ex, err = s.do(ctx, http.MethodGet, "/conformance/no-such-path", nil, nil)
	if err != nil {
		return err
	}
	return s.expectRefusal(ex, "GET /conformance/no-such-path (ORD-2)", http.StatusUnauthorized, "", "unauthenticated", msgUnauthenticated)
}

// authInvalid: AUTH-7 — an unknown or altered token, another scheme, or (on a
// murmur door) two Authorization headers are 401 invalid_token.
func authInvalid(ctx context.Context, s *suite) error {
	if why := s.authSkip(); why != "" {
		return skipf("%s", why)
	}
	for _, bad := range []string{"Bearer " + s.cfg.Token + "x", "Bearer conformance-unknown-token", "Basic " + s.cfg.Token} {
		ex, err := s.do(ctx, http.MethodPost, "/", s.getTaskBody(), hdr{"Authorization": bad})
		if err != nil {
			return err
		}
		name := "Authorization " + strings.Fields(bad)[0] + " with a bad token"
		if err := s.expectRefusal(ex, name, http.StatusUnauthorized, `error="invalid_token"`, "invalid_token", msgInvalidToken); err != nil {
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
	return s.expectRefusal(ex, "two Authorization headers", http.StatusUnauthorized, `error="invalid_token"`, "invalid_token", msgInvalidToken)
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
