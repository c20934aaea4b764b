package credential

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/murmur-go/mur/a2a"
)

const frm = "frm_0199c4e2f1b7712a9d3e4f5061728394"

func keys(t *testing.T) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

func mint(t *testing.T, priv ed25519.PrivateKey, c Claims) string {
	t.Helper()
	tok, err := Mint(priv, c)
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

// GO-5: a member token and the launcher token verify and read back.
func TestMintVerify(t *testing.T) {
	pub, priv := keys(t)
	c, err := Verify(pub, frm, mint(t, priv, MemberClaims(frm, "lead", "worker")))
	if err != nil {
		t.Fatalf("Verify(member token) error = %v", err)
	}
	if c.Subject != "lead" || c.Launcher() || !c.Names(frm, "worker") || c.Names(frm, "lead") || c.Scope != a2a.MemberTokenScope || c.ID == "" {
		t.Errorf("member claims = %+v", c)
	}
	l, err := Verify(pub, frm, mint(t, priv, LauncherClaims(frm, []string{"lead", "worker"})))
	if err != nil {
		t.Fatalf("Verify(launcher token) error = %v", err)
	}
	if !l.Launcher() || l.Subject != "launcher" || !l.Names(frm, "lead") || !l.Names(frm, "worker") {
		t.Errorf("launcher claims = %+v", l)
	}
}

// GO-5 step 4: the scope, not the subject, tells a member token from the
// launcher's — a member may itself be named "launcher" (ROS-2's name rule).
func TestMemberNamedLauncher(t *testing.T) {
	pub, priv := keys(t)
	c, err := Verify(pub, frm, mint(t, priv, MemberClaims(frm, "launcher", "worker")))
	if err != nil || c.Launcher() || c.Subject != "launcher" {
		t.Fatalf("Verify(member token of a member named launcher) = %+v, %v", c, err)
	}
	forged := LauncherClaims(frm, []string{"worker"})
	forged.Subject = "lead"
	if _, err := Verify(pub, frm, mint(t, priv, forged)); !errors.Is(err, ErrInvalid) {
		t.Errorf("launcher scope with subject lead: error = %v, want ErrInvalid", err)
	}
}

// GO-5 steps 1, 3, 4: every failure is the same ErrInvalid.
func TestVerifyRefusals(t *testing.T) {
	pub, priv := keys(t)
	_, otherPriv := keys(t)
	good := MemberClaims(frm, "lead", "worker")
	sign := func(m jwt.SigningMethod, key any, mc jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(m, mc).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": frm, "sub": "lead", "aud": frm + "/worker", "scope": a2a.MemberTokenScope, "iat": 1, "jti": "j"}
	}
	withExp := base()
	withExp["exp"] = 4102444800
	withNbf := base()
	withNbf["nbf"] = 1
	badAud := base()
	badAud["aud"] = "frm_other/worker"
	badScope := base()
	badScope["scope"] = "SendMessage"
	badSub := base()
	badSub["sub"] = "Lead!"
	noneTok := sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, base())
	hs := sign(jwt.SigningMethodHS256, []byte("secret"), base())
	tok := mint(t, priv, good)
	parts := strings.Split(tok, ".")
	altered := parts[0] + "." + parts[1] + "x." + parts[2]
	cases := map[string]string{
		"another formation's key":  mint(t, otherPriv, good),
		"alg none":                 noneTok,
		"alg HS256":                hs,
		"exp present":              sign(jwt.SigningMethodEdDSA, priv, withExp),
		"nbf present":              sign(jwt.SigningMethodEdDSA, priv, withNbf),
		"aud of another formation": sign(jwt.SigningMethodEdDSA, priv, badAud),
		"scope not one of the two": sign(jwt.SigningMethodEdDSA, priv, badScope),
		"sub not a member name":    sign(jwt.SigningMethodEdDSA, priv, badSub),
		"altered payload":          altered,
		"not a JWT":                "mdt_abc",
		"header crit":              withHeader(t, priv, base(), "crit", []string{"exp"}),
		"header kid":               withHeader(t, priv, base(), "kid", "k1"),
		"header typ JOSE":          withHeader(t, priv, base(), "typ", "JOSE"),
	}
	for name, tok := range cases {
		if _, err := Verify(pub, frm, tok); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Verify error = %v, want ErrInvalid", name, err)
		}
	}
	if _, err := Verify(pub, "frm_0199c4e2f1b7712a9d3e4f5061728395", tok); !errors.Is(err, ErrInvalid) {
		t.Errorf("another formation id: Verify error = %v, want ErrInvalid", err)
	}
}

// AUTH-5, STYLE §7: a token never prints.
func TestTokenRedacts(t *testing.T) {
	tok := Token("eyJ.secret.sig")
	if tok.String() != "[redacted]" || tok.LogValue().String() != "[redacted]" {
		t.Errorf("Token prints %q / %q", tok.String(), tok.LogValue().String())
	}
	if !LooksLikeJWT(string(tok)) || LooksLikeJWT("mdt_abc") {
		t.Error("LooksLikeJWT misreads its input")
	}
}

// withHeader signs mc with priv under the usual header plus one parameter.
func withHeader(t *testing.T, priv ed25519.PrivateKey, mc jwt.MapClaims, key string, value any) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, mc)
	tok.Header[key] = value
	s, err := tok.SignedString(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
