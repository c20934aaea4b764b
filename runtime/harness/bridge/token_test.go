package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
)

// TestToken: a token is mtt_ and 32 random bytes base64url, new per
// Start, and every way of printing it shows only the redaction (BRG-1;
// tokens never reach logs or traces).
func TestToken(t *testing.T) {
	a, b := startTest(t, Config{}, 0), startTest(t, Config{}, 0)
	secret := a.Token().Reveal()
	if !regexp.MustCompile(`^mtt_[A-Za-z0-9_-]{43}$`).MatchString(secret) {
		t.Errorf("token %q is not mtt_ + base64url of 32 bytes", secret)
	}
	if secret == b.Token().Reveal() {
		t.Error("two bridges share a token")
	}
	tok := a.Token()
	holder := struct{ T Token }{tok}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "token", tok, "holder", holder)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("x", "token", tok)
	js, err := json.Marshal(holder)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{fmt.Sprint(tok), fmt.Sprintf("%s %v %+v %#v %q", tok, tok, holder, holder, tok),
		logged.String(), string(js)} {
		if strings.Contains(out, secret) || strings.Contains(out, secret[4:]) {
			t.Errorf("the token shows in %q", out)
		}
		if !strings.Contains(out, redacted) {
			t.Errorf("no redaction in %q", out)
		}
	}
}

// TestClaudeConfig: ClaudeConfig is PROC-6's mcp.json byte for byte.
func TestClaudeConfig(t *testing.T) {
	s := startTest(t, Config{}, 0)
	got := string(s.ClaudeConfig())
	got = strings.ReplaceAll(got, s.Token().Reveal(), "<token>")
	got = strings.ReplaceAll(got, strings.TrimSuffix(strings.TrimPrefix(s.URL(), "http://"), Path), "127.0.0.1:<port>")
	golden.Check(t, "mcp.json", got)
}
