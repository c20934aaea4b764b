package main

import (
	"os"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/murhome"
)

// TestTokenCLI11 prints a record's tokens, operator first then manifest
// order, as lines and as one JSON object; a public door prints nothing.
func TestTokenCLI11(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	now := time.Now()
	authed := sesID("019a20000001", "1aaaa")
	public := sesID("019a20000002", "2aaaa")
	older := sesID("019a20000000", "3aaaa")
	e.writeRecord(t, &murhome.Running{SessionID: older, PID: 1, StartedAt: now.Add(-2 * time.Hour),
		Tokens: murhome.Tokens{{Name: "operator", Value: "op-old"}}})
	e.writeRecord(t, &murhome.Running{SessionID: authed, PID: 1, StartedAt: now.Add(-time.Hour),
		Tokens: murhome.Tokens{{Name: "operator", Value: "op-tok"}, {Name: "zeta", Value: "z-tok"}, {Name: "ci", Value: "ci-tok"}}})
	e.writeRecord(t, &murhome.Running{SessionID: public, PID: 1, StartedAt: now})

	cases := []struct {
		args []string
		want string
	}{
		{[]string{"token"}, ""}, // @1: the public door
		{[]string{"token", "@1", "--json"}, ""},
		{[]string{"token", "@2"}, "operator op-tok\nzeta z-tok\nci ci-tok\n"},
		{[]string{"token", "1AAAA"}, "operator op-tok\nzeta z-tok\nci ci-tok\n"},
		{[]string{"token", authed, "--json"}, `{"operator":"op-tok","zeta":"z-tok","ci":"ci-tok"}` + "\n"},
		{[]string{"token", "--json", "@3"}, `{"operator":"op-old"}` + "\n"},
	}
	for _, c := range cases {
		out, errOut, code := e.run(t, c.args...)
		if code != 0 || out != c.want || errOut != "" {
			t.Errorf("mur %v = %d, %q, %q; want 0, %q", c.args, code, out, errOut, c.want)
		}
	}

	hint := "  hint: mur ps lists the running sessions\n"
	fails := []struct {
		args []string
		want string
	}{
		{[]string{"token", "@4"}, "error[E-RUN-022]: no running session matches '@4'\n" + hint},
		{[]string{"token", "dddd"}, "error[E-RUN-022]: no running session matches 'dddd'\n" + hint},
		{[]string{"token", "aaaa"}, "error[E-RUN-022]: 'aaaa' matches 3 running sessions: " + public + ", " + authed + ", " + older + "\n" + hint},
		{[]string{"token", "ab"}, "error[E-RUN-022]: 'ab' is not a session address\n" + hint},
		{[]string{"token", "@0"}, "error[E-RUN-022]: '@0' is not a session address\n" + hint},
		{[]string{"token", "a/b/c/d"}, "error[E-RUN-022]: 'a/b/c/d' is not a session address\n" + hint},
	}
	for _, c := range fails {
		out, errOut, code := e.run(t, c.args...)
		if code != 1 || out != "" || errOut != c.want {
			t.Errorf("mur %v = %d, %q, %q; want 1, %q", c.args, code, out, errOut, c.want)
		}
	}
}

func TestTokenNoneAndUnreadableCLI11(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	_, errOut, code := e.run(t, "token")
	want := "error[E-RUN-022]: no capsule is running on this machine\n  hint: mur ps lists the running sessions\n"
	if code != 1 || errOut != want {
		t.Errorf("mur token (none) = %d, %q; want 1, %q", code, errOut, want)
	}
	if err := os.MkdirAll(e.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(murhome.RunningDir(e.home), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"token", "ps", "stop"} {
		args := []string{cmd}
		if cmd == "stop" {
			args = append(args, "@1")
		}
		_, errOut, code = e.run(t, args...)
		want = "error[E-RUN-028]: the running-capsule records could not be read: " + murhome.RunningDir(e.home) + ": not a directory\n" +
			"  hint: check that $MURMUR_HOME/running is a directory this user owns\n"
		if code != 1 || errOut != want {
			t.Errorf("mur %v (unreadable) = %d, %q; want 1, %q", args, code, errOut, want)
		}
	}
}

func TestTokenUsage(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	out, _, code := e.run(t, "token", "--help")
	if code != 0 || len(out) < 30 || out[:30] != "Usage: mur token [<session>] [" {
		t.Errorf("mur token --help = %d, %q", code, out)
	}
	_, errOut, code := e.run(t, "token", "@1", "@2")
	if want := "error: unexpected argument '@2'\nrun 'mur token --help' for usage\n"; code != 2 || errOut != want {
		t.Errorf("mur token @1 @2 = %d, %q; want 2, %q", code, errOut, want)
	}
}
