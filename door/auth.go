package door

import (
	"errors"
	"net/http"
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/credential"
)

// authenticator checks the bearer of every gated request (ORD-1 step 2).
type authenticator struct {
	realm       string
	tokens      *tokenTable
	formation   *Formation
	launcher    *grant      // the launcher token's grant
	completions Completions // nil: no completion token is accepted
}

func newAuthenticator(a *Auth, completions Completions) (*authenticator, error) {
	if a.Realm == "" {
		return nil, errors.New("door: auth has no realm")
	}
	if f := a.Formation; f != nil && (f.ID == "" || f.Member == "" || len(f.PublicKey) == 0) {
		return nil, errors.New("door: formation needs an id, a member name and a public key")
	}
	return &authenticator{
		realm:       a.Realm,
		tokens:      newTokenTable(a.Tokens),
		formation:   a.Formation,
		launcher:    &grant{credential: a2a.LauncherSubject, scopes: scopeMask([]string{a2a.MethodGetExtendedAgentCard})},
		completions: completions,
	}, nil
}

// authenticate is ORD-1 step 2: on an authenticated door, before path, body
// or method are read, the Authorization header must carry a door token or a
// formation token that this door accepts (AUTH-7, GO-4, GO-5). A public door
// ignores Authorization entirely (AUTH-1).
func (s *Server) authenticate(next http.Handler) http.Handler {
	if s.auth == nil {
		return next
	}
	a := s.auth
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		vals := r.Header.Values("Authorization")
		if len(vals) == 0 {
			s.refuse(w, r, unauthenticated(a.realm))
			return
		}
		g, ref := a.admit(vals)
		if g == nil {
			s.refuse(w, r, ref)
			return
		}
		exchangeOf(r).grant = g
		next.ServeHTTP(w, r)
	})
}

// admit returns the grant for the Authorization header lines, or the refusal.
func (a *authenticator) admit(vals []string) (*grant, refusal) {
	if len(vals) != 1 {
		return nil, invalidToken(a.realm)
	}
	scheme, bearer, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || bearer == "" || strings.ContainsAny(bearer, " \t") {
		return nil, invalidToken(a.realm)
	}
	if credential.LooksLikeJWT(bearer) {
		return a.admitFormation(bearer)
	}
	if g := a.tokens.lookup(bearer); g != nil {
		return g, refusal{}
	}
	if a.completions != nil {
		if id, ok := a.completions.Bearer(bearer); ok {
			return &grant{credential: "delegation:" + id, delegation: id}, refusal{}
		}
	}
	return nil, invalidToken(a.realm)
}

// admitFormation runs GO-5: steps 1, 3 and 4 are credential.Verify; step 2
// (this door belongs to a formation), 5 (aud names this member) and 6 (the
// grant) are the door's.
func (a *authenticator) admitFormation(bearer string) (*grant, refusal) {
	f := a.formation
	if f == nil {
		return nil, invalidToken(a.realm)
	}
	c, err := credential.Verify(f.PublicKey, f.ID, bearer)
	if err != nil {
		return nil, invalidToken(a.realm)
	}
	if !c.Names(f.ID, f.Member) {
		return nil, notPermitted(a.realm, c.Subject)
	}
	if c.Launcher() {
		return a.launcher, refusal{}
	}
	return &grant{credential: "member:" + c.Subject, member: c.Subject, scopes: scopeMask(a2a.MemberTokenMethods)}, refusal{}
}

// consent is ORD-1 step 3 (PEER-2): a peer-origin request to a capsule that
// does not accept peer tasks is refused, whatever its path, method or body;
// a formation token does not bypass it.
func (s *Server) consent(next http.Handler) http.Handler {
	if s.cfg.PeerTasks {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerWord(r, a2a.HeaderTaskOrigin) == string(a2a.OriginPeer) {
			s.refuse(w, r, peerNotAccepted)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// headerWord is a murmur header's value, lower-cased and trimmed (PEER-1).
func headerWord(r *http.Request, name string) string {
	return strings.ToLower(strings.TrimSpace(r.Header.Get(name)))
}
