package spawn

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/manifest"
)

func parse(t *testing.T, yaml string) *manifest.Manifest {
	t.Helper()
	m, _, err := manifest.Parse("/p/murmur.yaml", []byte("name: c\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: s.yaml}\n"+yaml), nil)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return m
}

// TestCovered_DLG2: a bare host covers every form of it; host:port that
// port in every form; a URL only itself; localhost covers its addresses.
func TestCovered_DLG2(t *testing.T) {
	t.Parallel()
	entry := func(s string) manifest.AllowEntry {
		e, err := manifest.ParseAllowEntry(s)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	list := func(ss ...string) manifest.AllowList {
		var l manifest.AllowList
		for _, s := range ss {
			l = append(l, entry(s))
		}
		return l
	}
	cases := []struct {
		held  manifest.AllowList
		child string
		want  bool
	}{
		{list("example.com"), "https://example.com", true},
		{list("example.com"), "example.com:8443", true},
		{list("example.com"), "api.example.com", false},
		{list("example.com:443"), "https://example.com", true},
		{list("example.com:443"), "http://example.com", false},
		{list("https://example.com"), "https://example.com:443", true},
		{list("https://example.com"), "example.com", false},
		{list("https://example.com"), "http://example.com:443", false},
		{list("localhost"), "127.0.0.1:8080", true},
		{list("localhost"), "http://[::1]:9", true},
		{list("127.0.0.1"), "localhost", false},
		{nil, "example.com", false},
	}
	for _, c := range cases {
		if got := covered(c.held, entry(c.child)); got != c.want {
			t.Errorf("covered(%v, %s) = %v, want %v", c.held, c.child, got, c.want)
		}
	}
}

// TestWithin_DLG2: a scope covers itself and what lies beneath it.
func TestWithin_DLG2(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		parent, child string
		want          bool
	}{{"data", "data", true}, {"data", "data/sub", true}, {"data", "./data/sub/", true}, {"data", "data-x", false}, {"data", "other", false}, {".", "any", true}} {
		if got := within(c.parent, c.child); got != c.want {
			t.Errorf("within(%q, %q) = %v", c.parent, c.child, got)
		}
	}
}

// TestEnvelopeEnvAllow_DLG2: the env axis (capabilities.env.allow) holds every
// child name to the parent's list; the first fault is named.
func TestEnvelopeEnvAllow_DLG2(t *testing.T) {
	t.Parallel()
	env := func(names string) *manifest.Manifest {
		return parse(t, "capabilities:\n  spawn:\n    allow: [local/w@0.1.0]\n  env:\n    allow: ["+names+"]\n")
	}
	if r := envelope(env("A, B"), env("B, A")); r != nil {
		t.Errorf("a child within the parent's env.allow refused: %v", r)
	}
	if r := envelope(env("A"), parse(t, "")); r != nil {
		t.Errorf("a child declaring no env.allow refused: %v", r)
	}
	r := envelope(env("A"), env("A, EXTRA_NAME"))
	if r == nil || r.Sentence != "capabilities.env.allow: the child declares 'EXTRA_NAME', which its parent does not hold — a spawned capsule can never hold more capability than the capsule that spawned it" {
		t.Errorf("envelope = %v", r)
	}
	if r := envelope(parse(t, "capabilities:\n  spawn:\n    allow: [local/w@0.1.0]\n"), env("A")); r == nil || !strings.HasPrefix(r.Sentence, "capabilities.env.allow: the child declares 'A', ") {
		t.Errorf("a parent without env.allow: envelope = %v", r)
	}
}

// TestRefusedBeforeSpawn_DLG2: the allow list, the depth and the live
// count refuse before anything is resolved or started (the hub's mur does
// not even exist).
func TestRefusedBeforeSpawn_DLG2(t *testing.T) {
	t.Parallel()
	m := parse(t, "capabilities:\n  spawn:\n    allow: [local/w@0.1.0]\n")
	hub := func(depth int) *Hub {
		h, err := New(Config{Mur: "/nonexistent/mur", Parent: m, SessionID: "ses_x", URL: "http://127.0.0.1:1", Workdir: t.TempDir(), Depth: depth})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	cases := []struct {
		name string
		h    *Hub
		req  Request
		want string
	}{
		{"name", hub(0), Request{Capsule: "x", Version: "0.1.0"}, "capsule 'x' is not in parent's spawn_allow"},
		{"version", hub(0), Request{Capsule: "w", Version: "0.2.0"}, "capsule 'w@0.2.0' is not in parent's spawn_allow"},
		{"depth", hub(3), Request{Capsule: "w", Version: "0.1.0"}, "capsule 'w' would run 4 levels below the top-level capsule, and delegation goes at most 3 levels deep; this capsule is at the last level, so it must do the work itself"},
	}
	full := hub(0)
	full.slots = MaxLive
	cases = append(cases, struct {
		name string
		h    *Hub
		req  Request
		want string
	}{"live", full, Request{Capsule: "w", Version: "0.1.0"}, "capsule 'w' was not started: this capsule already runs 4 sub-capsules, the most it may run at once; wait for an outcome before delegating again"})
	for _, c := range cases {
		_, err := c.h.Delegate(context.Background(), c.req)
		var ref *Refusal
		if !errors.As(err, &ref) || ref.Sentence != c.want {
			t.Errorf("%s: Delegate = %v, want refusal %q", c.name, err, c.want)
		}
		want := 0
		if c.name == "live" {
			want = MaxLive
		}
		if c.h.Live() != want {
			t.Errorf("%s: %d live after a refusal, want %d", c.name, c.h.Live(), want)
		}
	}
	// Allowed but in no store: failed, not refused, and the slot is back.
	_, err := hub(0).Delegate(context.Background(), Request{Capsule: "w", Version: "0.1.0"})
	var le *LaunchError
	if !errors.As(err, &le) || le.Output != "capsule 'w@0.1.0' is not installed in the project or the global store" {
		t.Errorf("not installed: %v", err)
	}
}

// TestContainmentFloor_DLG2: a child's containment floor may rise above its
// parent's, never fall below it.
func TestContainmentFloor_DLG2(t *testing.T) {
	t.Parallel()
	decl := func(c string) *manifest.Manifest {
		if c == "" {
			return parse(t, "")
		}
		return parse(t, "capabilities:\n  containment: "+c+"\n")
	}
	for _, c := range []struct {
		parent, child, refused string
	}{
		{"", "", ""}, {"", "advisory", ""}, {"advisory", "scoped", ""}, {"scoped", "scoped", ""},
		{"scoped", "advisory", "advisory"}, {"scoped", "", "(none: whatever the host offers)"}, {"advisory", "", "(none: whatever the host offers)"},
	} {
		r := envelope(decl(c.parent), decl(c.child))
		switch {
		case c.refused == "" && r != nil:
			t.Errorf("parent %q, child %q refused: %v", c.parent, c.child, r)
		case c.refused != "" && (r == nil || r.Sentence != "capabilities.containment: the child declares '"+c.refused+"', which its parent does not hold — a spawned capsule can never hold more capability than the capsule that spawned it"):
			t.Errorf("parent %q, child %q: %v", c.parent, c.child, r)
		}
	}
}
