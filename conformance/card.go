package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// cardFetch: DOOR-2, DOOR-3, ORD-1 step 1 — served with no token and no
// A2A-Version, 200, application/json. The suite reads the card from here on.
func cardFetch(ctx context.Context, s *suite) error {
	s.cardWhy = "card.fetch failed"
	ex, err := s.do(ctx, http.MethodGet, a2a.WellKnownCardPath, nil, nil)
	if err != nil {
		return err
	}
	if ex.status != http.StatusOK {
		return failf("HTTP %d %s, want 200", ex.status, snippet(ex.body))
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(ex.body, &card); err != nil {
		return failf("the card is not a JSON object: %v", err)
	}
	s.card, s.rawCard, s.cardHeader = &card, ex.body, ex.header
	s.murmur = card.Extension(a2a.ExtensionDoor) != nil
	if mt := ex.mediaType(); mt != "application/json" {
		return failf("Content-Type %q, want application/json (DOOR-3)", ex.header.Get("Content-Type"))
	}
	return nil
}

// cardCache: A2A §8.6.1 — the card's answer SHOULD carry Cache-Control with
// a max-age directive and an ETag; a murmur door's SHOULD also say no-cache
// (DOOR-3: the card names a session). Each one missing is a warning.
func cardCache(_ context.Context, s *suite) error {
	cc := strings.ToLower(s.cardHeader.Get("Cache-Control"))
	switch {
	case cc == "":
		s.warnf("no Cache-Control header (A2A §8.6.1 SHOULD: one with max-age)")
	case !hasDirective(cc, "max-age"):
		s.warnf("Cache-Control %q has no max-age directive (A2A §8.6.1 SHOULD)", cc)
	}
	if s.murmur && !hasDirective(cc, "no-cache") {
		s.warnf("Cache-Control %q, want no-cache on a murmur door (DOOR-3)", cc)
	}
	if s.cardHeader.Get("ETag") == "" {
		s.warnf("no ETag header (A2A §8.6.1 SHOULD)")
	}
	return nil
}

// hasDirective reports whether a lower-cased Cache-Control value names the
// directive, with or without an argument.
func hasDirective(cc, name string) bool {
	for _, d := range strings.Split(cc, ",") {
		d, _, _ = strings.Cut(strings.TrimSpace(d), "=")
		if d == name {
			return true
		}
	}
	return false
}

// cardShape: door.md §2 — the card must parse under a strict lf.a2a.v1.AgentCard parser.
func cardShape(_ context.Context, s *suite) error {
	if err := validate(s.rawCard, cardSpec, "card"); err != nil {
		return err
	}
	if len(s.card.DefaultInputModes) == 0 || len(s.card.DefaultOutputModes) == 0 {
		return failf("defaultInputModes and defaultOutputModes must each name a media type")
	}
	return nil
}

// cardSignature: A2A §8.4.2 — each signature a card carries is a JWS whose
// protected header is base64url JSON naming alg and kid (typ SHOULD be
// JOSE), with a base64url signature. The suite holds no key, so it checks
// the form; mur card verify checks a signature with a key.
func cardSignature(_ context.Context, s *suite) error {
	var c struct {
		Signatures []struct {
			Protected string `json:"protected"`
			Signature string `json:"signature"`
		} `json:"signatures"`
	}
	_ = json.Unmarshal(s.rawCard, &c)
	if len(c.Signatures) == 0 {
		return skipf("the card carries no signatures")
	}
	for i, sig := range c.Signatures {
		hb, err := base64.RawURLEncoding.DecodeString(sig.Protected)
		if err != nil {
			return failf("signatures[%d].protected is not base64url: %v", i, err)
		}
		var h map[string]any
		if err := json.Unmarshal(hb, &h); err != nil {
			return failf("signatures[%d].protected decodes to %q, not a JSON object", i, hb)
		}
		alg, _ := h["alg"].(string)
		kid, _ := h["kid"].(string)
		if alg == "" || alg == "none" || kid == "" {
			return failf("signatures[%d] protected header %s, want alg (not none) and kid (A2A §8.4.2)", i, hb)
		}
		if b, err := base64.RawURLEncoding.DecodeString(sig.Signature); err != nil || len(b) == 0 {
			return failf("signatures[%d].signature is not base64url", i)
		}
		if typ, _ := h["typ"].(string); typ != "JOSE" {
			s.warnf("signatures[%d] protected header typ %q, want JOSE (A2A §8.4.2 SHOULD)", i, typ)
		}
	}
	return nil
}

// cardInterface: CARD-1, DOOR-1 — a JSONRPC interface at protocol version 1.0;
// a murmur door lists it, http://<host>:<port> with no trailing "/", then
// HTTP+JSON 1.0 at the same URL.
func cardInterface(_ context.Context, s *suite) error {
	var found *a2a.AgentInterface
	for i, in := range s.card.SupportedInterfaces {
		if in.ProtocolBinding == "JSONRPC" && in.ProtocolVersion == a2a.ProtocolVersion {
			found = &s.card.SupportedInterfaces[i]
			break
		}
	}
	if found == nil {
		return failf("no supportedInterfaces entry has protocolBinding JSONRPC and protocolVersion 1.0")
	}
	u, err := url.Parse(found.URL)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return failf("interface url %q is not an absolute http(s) URL", found.URL)
	}
	if !s.murmur {
		return nil
	}
	if n := len(s.card.SupportedInterfaces); n != 2 {
		return failf("%d supportedInterfaces, want two: JSONRPC and HTTP+JSON (CARD-1)", n)
	}
	rest := s.card.SupportedInterfaces[1]
	if rest.ProtocolBinding != a2a.BindingHTTPJSON || rest.ProtocolVersion != a2a.ProtocolVersion || rest.URL != found.URL {
		return failf("second interface %+v, want HTTP+JSON 1.0 at %s (CARD-1)", rest, found.URL)
	}
	if u.Scheme != "http" || u.Port() == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return failf("interface url %q, want http://<address>:<port> with no path (DOOR-1)", found.URL)
	}
	if tu, err := url.Parse(s.base); err == nil && tu.Port() != "" && tu.Port() != u.Port() {
		return failf("interface url %q names port %s, but the door answered at %s (DOOR-1)", found.URL, u.Port(), s.base)
	}
	return nil
}

// cardCapabilities: CARD-2, CARD-3 — extension uris unique; on a murmur door
// pushNotifications false, extendedAgentCard true exactly when authenticated,
// streaming true exactly when SendStreamingMessage is served, every
// extension required false.
func cardCapabilities(_ context.Context, s *suite) error {
	seen := map[string]bool{}
	for _, ext := range s.card.Capabilities.Extensions {
		if ext.URI == "" {
			return failf("an extension has no uri")
		}
		if seen[ext.URI] {
			return failf("extension %s is declared twice", ext.URI)
		}
		seen[ext.URI] = true
	}
	if !s.murmur {
		return nil
	}
	c := s.card.Capabilities
	if c.PushNotifications {
		return failf("pushNotifications true, want false (CARD-2)")
	}
	if c.ExtendedAgentCard != s.requiresAuth() {
		return failf("extendedAgentCard %v on a door that %s (CARD-2)", c.ExtendedAgentCard, authWord(s.requiresAuth()))
	}
	if c.Streaming != s.serves(a2a.MethodSendStreamingMessage) {
		return failf("streaming %v, but the door extension %s SendStreamingMessage (CARD-2)", c.Streaming, listsWord(!c.Streaming))
	}
	for _, ext := range c.Extensions {
		if ext.Required {
			return failf("extension %s is required, want required false (CARD-3)", ext.URI)
		}
	}
	return nil
}

func authWord(auth bool) string {
	if auth {
		return "requires a token"
	}
	return "is public"
}

func listsWord(lists bool) string {
	if lists {
		return "lists"
	}
	return "does not list"
}

// cardSkills: CARD-4 — the list is never empty; ids unique. A murmur door has
// exactly the one "task" skill.
func cardSkills(_ context.Context, s *suite) error {
	if len(s.card.Skills) == 0 {
		return failf("skills is empty")
	}
	seen := map[string]bool{}
	for _, sk := range s.card.Skills {
		if sk.ID == "" || seen[sk.ID] {
			return failf("skill id %q is empty or repeated", sk.ID)
		}
		seen[sk.ID] = true
	}
	if !s.murmur {
		return nil
	}
	sk := s.card.Skills[0]
	want := "Runs one task given as a text message and reports its outcome."
	if len(s.card.Skills) != 1 || sk.ID != "task" || sk.Name != "Run a task" || sk.Description != want ||
		strings.Join(sk.Tags, ",") != "task" {
		return failf("skills %+v, want the one CARD-4 task skill", s.card.Skills)
	}
	return nil
}

// cardSecurity: CARD-1, CARD-6 — every requirement names a declared scheme;
// a murmur door is public ({} and []) or bearer exactly as CARD-6 says.
func cardSecurity(_ context.Context, s *suite) error {
	reqs := append([]a2a.SecurityRequirement(nil), s.card.SecurityRequirements...)
	for _, sk := range s.card.Skills {
		reqs = append(reqs, sk.SecurityRequirements...)
	}
	for _, r := range reqs {
		for name := range r.Schemes {
			if _, ok := s.card.SecuritySchemes[name]; !ok {
				return failf("a security requirement names scheme %q, which securitySchemes lacks", name)
			}
		}
	}
	if !s.murmur {
		return nil
	}
	if !s.requiresAuth() {
		if len(s.card.SecuritySchemes) != 0 {
			return failf("securitySchemes %v on a public door, want {} (CARD-1)", s.card.SecuritySchemes)
		}
		return nil
	}
	b, ok := s.card.SecuritySchemes["bearer"]
	want := "A token this capsule's runtime mints at launch and accepts until the session ends."
	if len(s.card.SecuritySchemes) != 1 || !ok || b.HTTPAuthSecurityScheme == nil ||
		b.HTTPAuthSecurityScheme.Scheme != "Bearer" || b.HTTPAuthSecurityScheme.Description != want {
		return failf("securitySchemes %s, want the one CARD-6 bearer scheme", jsonOf(s.card.SecuritySchemes))
	}
	if got := jsonOf(s.card.SecurityRequirements); got != `[{"schemes":{"bearer":{"list":[]}}}]` {
		return failf("securityRequirements %s, want the CARD-6 bearer requirement", got)
	}
	var want2 []string
	for _, m := range []string{a2a.MethodSendMessage, a2a.MethodSendStreamingMessage} {
		if s.serves(m) {
			want2 = append(want2, `{"schemes":{"bearer":{"list":["`+m+`"]}}}`)
		}
	}
	if got, w := jsonOf(s.card.Skills[0].SecurityRequirements), "["+strings.Join(want2, ",")+"]"; got != w && !(got == "null" && len(want2) == 0) {
		return failf("the task skill's securityRequirements %s, want %s (CARD-6)", got, w)
	}
	return nil
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
