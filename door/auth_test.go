package door

import (
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/credential"
)

func mint(t *testing.T, priv ed25519.PrivateKey, c credential.Claims) string {
	t.Helper()
	tok, err := credential.Mint(priv, c)
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

// signed signs the claims of a member token with any method, for tokens the
// launcher would never mint.
func signed(t *testing.T, method jwt.SigningMethod, key any, frm, sub, aud string) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, jwt.MapClaims{"iss": frm, "sub": sub, "aud": aud,
		"scope": a2a.MemberTokenScope, "iat": time.Now().Unix(), "jti": "j"}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// alter changes the first character of a token's signature (the last
// character may differ only in padding bits that decode the same).
func alter(tok string) string {
	i := strings.LastIndexByte(tok, '.') + 1
	c := byte('A')
	if tok[i] == 'A' {
		c = 'B'
	}
	return tok[:i] + string(c) + tok[i+1:]
}

// TestFormationTokens_GO5_CRED5 runs every door outcome of a formation token.
func TestFormationTokens_GO5_CRED5(t *testing.T) {
	logs := &testmur.Buffer{}
	f, priv := newFormation(t, "worker")
	td := startDoor(t, opts{auth: true, peerTasks: true, formation: f, noExecutor: true, logs: logs})
	lead := mint(t, priv, credential.MemberClaims(f.ID, "lead", "worker"))
	other := mint(t, priv, credential.MemberClaims(f.ID, "scout", "worker"))
	launcher := mint(t, priv, credential.LauncherClaims(f.ID, []string{"lead", "worker"}))
	op := td.tokens[OperatorCredential]
	_, strangerKey, _ := ed25519.GenerateKey(nil)
	invalid := `Bearer realm="coder", error="invalid_token"`

	t.Run("refused at the token", func(t *testing.T) {
		for name, tok := range map[string]string{
			"another launch's key": mint(t, strangerKey, credential.MemberClaims(f.ID, "lead", "worker")),
			"another formation":    mint(t, priv, credential.MemberClaims("frm_019f01a940ce7761854e768ecbe3d3ff", "lead", "worker")),
			"HS256":                signed(t, jwt.SigningMethodHS256, []byte(f.PublicKey), f.ID, "lead", a2a.FormationAudience(f.ID, "worker")),
			"alg none":             signed(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, f.ID, "lead", a2a.FormationAudience(f.ID, "worker")),
			"altered":              alter(lead),
		} {
			t.Run(name, func(t *testing.T) {
				wantRefusal(t, td.post(tok, getTask), 401, invalid, "auth_invalid_token")
			})
		}
	})
	t.Run("aud names another member", func(t *testing.T) {
		tok := mint(t, priv, credential.MemberClaims(f.ID, "lead", "scout"))
		wantRefusal(t, td.post(tok, getTask), 403, `Bearer realm="coder", error="insufficient_scope"`, "auth_not_permitted")
	})
	t.Run("member reaches five methods only", func(t *testing.T) {
		for _, m := range []string{"SendStreamingMessage", "stream/watch", "session/stop", "GetExtendedAgentCard"} {
			rep := td.post(lead, `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":{}}`)
			want := `{"error":"insufficient_scope","message":"credential 'member:lead' does not reach ` + m + `"}`
			if rep.status != 403 || rep.body != want ||
				rep.header.Get("Www-Authenticate") != `Bearer realm="coder", error="insufficient_scope", scope="`+m+`"` {
				t.Errorf("member %s = %d %v %s, want 403 %s", m, rep.status, rep.header, rep.body, want)
			}
		}
	})
	t.Run("member sends, reads only its own tasks", func(t *testing.T) {
		mine := td.call(lead, sendBody("mine", "")).task(t, true)
		theirs := td.call(op, sendBody("theirs", "")).task(t, true)
		scouts := td.call(other, sendBody("scout's", "")).task(t, true)
		if got := td.call(lead, idCall("GetTask", string(mine.ID))).task(t, false); got.ID != mine.ID {
			t.Errorf("GetTask own = %v", got.ID)
		}
		for _, id := range []a2a.TaskID{theirs.ID, scouts.ID} {
			for _, m := range []string{"GetTask", "CancelTask"} {
				r := td.call(lead, idCall(m, string(id)))
				if r.Error == nil || r.Error.Code != -32001 {
					t.Errorf("%s of another's task = %+v, want -32001", m, r.Error)
				}
			}
			r := td.call(lead, msgBody(`{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"taskId":"`+string(id)+`"}`))
			if r.Error == nil || r.Error.Code != -32001 {
				t.Errorf("reply to another's task = %+v, want -32001", r.Error)
			}
		}
		r := td.call(lead, `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`)
		if !strings.Contains(string(r.Result), string(mine.ID)) || strings.Contains(string(r.Result), string(theirs.ID)) ||
			!strings.Contains(string(r.Result), `"totalSize":1`) {
			t.Errorf("member ListTasks = %s, want only its own task", r.Result)
		}
		if r := td.call(op, `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`); !strings.Contains(string(r.Result), `"totalSize":3`) {
			t.Errorf("operator ListTasks = %s, want every task (AUTH-4)", r.Result)
		}
		if got := td.call(lead, idCall("CancelTask", string(mine.ID))).task(t, false); got.Status.State != a2a.TaskStateCanceled {
			t.Errorf("member cancels its own task: %s", got.Status.State)
		}
	})
	t.Run("launcher reaches the extended card only", func(t *testing.T) {
		if r := td.call(launcher, `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}`); r.Error != nil {
			t.Errorf("launcher GetExtendedAgentCard = %+v", r.Error)
		}
		rep := td.post(launcher, getTask)
		wantRefusal(t, rep, 403, `Bearer realm="coder", error="insufficient_scope", scope="GetTask"`, "auth_launcher_scope")
	})
	t.Run("tokens reach no log", func(t *testing.T) {
		out := logs.String()
		for _, tok := range []string{lead, other, launcher, op} {
			if strings.Contains(out, tok) {
				t.Errorf("a token reached the log")
			}
		}
		if !strings.Contains(out, "door answered an error") {
			t.Errorf("debug log is empty; the check above proves nothing")
		}
	})
}

// TestFormationConsent_PEER2: a formation token does not bypass consent.
func TestFormationConsent_PEER2(t *testing.T) {
	f, priv := newFormation(t, "worker")
	td := startDoor(t, opts{auth: true, formation: f})
	lead := mint(t, priv, credential.MemberClaims(f.ID, "lead", "worker"))
	wantRefusal(t, td.post(lead, sendBody("x", ""), "x-murmur-task-origin: peer"), 403, "", "peer_not_accepted")
}

// TestFormationTokenAtPlainDoor_AUTH6: a door in no formation answers every
// formation token 401, and a public door ignores Authorization (AUTH-1).
func TestFormationTokenAtPlainDoor_AUTH6(t *testing.T) {
	f, priv := newFormation(t, "worker")
	lead := mint(t, priv, credential.MemberClaims(f.ID, "lead", "worker"))
	td := startDoor(t, opts{auth: true})
	wantRefusal(t, td.post(lead, getTask), 401, `Bearer realm="coder", error="invalid_token"`, "auth_invalid_token")
	public := startDoor(t, opts{})
	for _, hdr := range [][]string{{"Authorization: Bearer " + lead}, {"Authorization: Basic x", "Authorization: junk"}} {
		if r := public.call("", getTask, hdr...); r.Error == nil || r.Error.Code != -32001 {
			t.Errorf("public door with %v = %+v, want -32001", hdr, r.Error)
		}
	}
}

// TestMintTokens_GO4 checks the token form and refuses unusable credentials.
func TestMintTokens_GO4(t *testing.T) {
	toks, err := MintTokens([]Credential{{Name: "ci", Scopes: []string{"GetTask", "ListTasks"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != 2 || toks[0].Credential != OperatorCredential || len(toks[0].Scopes) != 8 || toks[1].Credential != "ci" {
		t.Fatalf("tokens = %+v", toks)
	}
	for _, tk := range toks {
		v := string(tk.Value)
		if !strings.HasPrefix(v, "mdt_") || len(v) != 4+43 || strings.ContainsAny(v, "+/=") {
			t.Errorf("token %q is not mdt_ + 32 bytes base64url", tk.Credential)
		}
		if tk.Value.String() != "[redacted]" {
			t.Errorf("token prints as %q", tk.Value.String())
		}
	}
	for _, bad := range []Credential{{Name: "a:b"}, {Name: OperatorCredential}, {Name: ""}, {Name: "x", Scopes: []string{"tasks/get"}}} {
		if _, err := MintTokens([]Credential{bad}); err == nil {
			t.Errorf("MintTokens(%+v) accepted", bad)
		}
	}
}
