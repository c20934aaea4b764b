package conformance_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/conformance"
)

// Fakes that break one token rule of a formation door; the suite must fail
// the check that guards it (AUTH-3, AUTH-4, AUTH-6, GO-5).
func TestTokenChecksCatchBrokenDoors_AUTH6(t *testing.T) {
	t.Parallel()
	// swap sends the door another bearer when the request carries from.
	swap := func(from, to func(d *testDoor) string) func(d *testDoor, next http.Handler) http.Handler {
		return func(d *testDoor, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") == "Bearer "+from(d) {
					r.Header.Set("Authorization", "Bearer "+to(d))
				}
				next.ServeHTTP(w, r)
			})
		}
	}
	operator := func(d *testDoor) string { return d.token }
	member := func(d *testDoor) string { return d.member }
	cases := []struct {
		name string
		wrap func(d *testDoor, next http.Handler) http.Handler
		fail []string
	}{
		{"member token read as the operator's", swap(member, operator), []string{"formation.scope", "formation.own-tasks"}},
		{"forged member tokens let in", func(d *testDoor, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && strings.Count(tok, ".") == 2 {
					r.Header.Set("Authorization", "Bearer "+d.member)
				}
				next.ServeHTTP(w, r)
			})
		}, []string{"formation.forged"}},
		{"scope refusals without the scope attribute", func(_ *testDoor, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				next.ServeHTTP(noScope{w}, r)
			})
		}, []string{"auth.scoped", "formation.scope"}},
		{"a scoped credential that sees no task", func(d *testDoor, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if m, _ := rpcMethod(r); m != a2a.MethodGetTask || r.Header.Get("Authorization") != "Bearer "+d.scoped {
					next.ServeHTTP(w, r)
					return
				}
				r.Body = io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"tsk_00000000000070008000000000000000"}}`))
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, r)
				w.Header().Set("Content-Type", "application/json")
				w.Write(rec.Body.Bytes())
			})
		}, []string{"auth.scoped"}},
		{"a scoped credential reaching everything", swap(func(d *testDoor) string { return d.scoped }, operator), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := startDoor(t, doorOpts{formation: true, wrapTokens: tc.wrap})
			got := conformance.Run(context.Background(), conformance.Config{URL: d.url, Token: d.token,
				ScopedToken: d.scoped, MemberToken: d.member, SlowTaskText: slowText})
			st := statuses(got)
			for _, id := range tc.fail {
				if st[id] != conformance.Fail {
					t.Errorf("%s = %s, want FAIL", id, st[id])
				}
			}
			if tc.fail == nil && st["auth.scoped"] != conformance.Skip {
				t.Errorf("auth.scoped = %s, want SKIP: nothing shows the credential lacks a scope", st["auth.scoped"])
			}
		})
	}
}

// A door that is not a murmur door is not judged by formation tokens, and a
// member token that is no JWT is not held against the door.
func TestFormationChecksSkip_AUTH6(t *testing.T) {
	t.Parallel()
	d := startDoor(t, doorOpts{formation: true})
	for _, tc := range []struct {
		name   string
		member string
		want   string
	}{
		{"not a JWT", "mdt_conformance", "the member token is not a JWT of three segments (GO-5)"},
		{"a door token's scope", d.member[:strings.Index(d.member, ".")] + ".eyJzdWIiOiJsZWFkIiwic2NvcGUiOiJHZXRUYXNrIn0.x",
			`the token's scope is "GetTask", not a member token's "` + a2a.MemberTokenScope + `" (GO-5)`},
	} {
		for _, r := range conformance.Run(context.Background(), conformance.Config{URL: d.url, Token: d.token, MemberToken: tc.member}) {
			if strings.HasPrefix(r.ID, "formation.") && (r.Status != conformance.Skip || r.Why != tc.want) {
				t.Errorf("%s: %s, want SKIP: %s", tc.name, r, tc.want)
			}
		}
	}
}

// noScope drops the scope attribute of the door's challenges.
type noScope struct{ http.ResponseWriter }

func (n noScope) WriteHeader(code int) {
	if www, _, cut := strings.Cut(n.Header().Get("Www-Authenticate"), ", scope="); cut {
		n.Header().Set("Www-Authenticate", www)
	}
	n.ResponseWriter.WriteHeader(code)
}

func (n noScope) Flush() { n.ResponseWriter.(http.Flusher).Flush() }
