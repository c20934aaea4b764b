package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/conformance"
	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/internal/doortest"
	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// runConformanceBin runs the real binary: `mur conformance <args>`.
func runConformanceBin(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(murBin, append([]string{"conformance"}, args...)...)
	cmd.Env = append(os.Environ(), "MURMUR_HOME="+t.TempDir())
	return testmur.Exec(t, cmd)
}

// Usage errors exit 2 with the README's two lines (Output contract).
func TestConformanceUsage_GO7(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, args := range [][]string{{}, {"http://127.0.0.1:1", "extra"}, {"127.0.0.1:1"}, {"--nope", "http://127.0.0.1:1"}, {"http://127.0.0.1:1", "--token"},
		{"http://127.0.0.1:1", "--token", "member=mdt_a", "--token", "member=@mdt_b"}, {"http://127.0.0.1:1", "--token", "scoped="},
		{"--check-timeout", "0s", "http://127.0.0.1:1"}} {
		out, errOut, code := runConformanceBin(t, args...)
		if code != 2 || out != "" {
			t.Errorf("mur conformance %q: exit %d, stdout %q; want 2 and nothing", args, code, out)
		}
		b.WriteString("$ mur conformance " + strings.Join(args, " ") + "\n" + errOut)
	}
	golden.Check(t, "conformance-usage", b.String())
	out, _, code := runConformanceBin(t, "--help")
	if code != 0 || !strings.HasPrefix(out, "Usage: mur conformance <url> [--token [door=|scoped=|member=]@<file>]... [--task-text <text>]") ||
		!strings.Contains(out, "  --slow-task-text <text>") || !strings.Contains(out, "MURMUR_CONFORMANCE_TOKEN_MEMBER") || !strings.Contains(out, "  --json ") {
		t.Errorf("mur conformance --help: exit %d, stdout %q", code, out)
	}
}

// An unreachable URL fails check 1, skips the rest, exits 1 (door.md GO-7).
func TestConformanceUnreachable_GO7(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	out, errOut, code := runConformanceBin(t, "http://"+addr)
	if code != 1 || errOut != "" {
		t.Errorf("exit %d, stderr %q; want 1 and nothing", code, errOut)
	}
	golden.Check(t, "conformance-unreachable", strings.ReplaceAll(out, addr, "127.0.0.1:<port>"))
}

// A door that breaks a rule fails its check; the command exits 1.
func TestConformanceFailingDoor_GO7(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != a2a.WellKnownCardPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name":"x","description":"x","version":"1","supportedInterfaces":[{"url":"`+
			"http://"+r.Host+`","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},`+
			`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`)
	}))
	t.Cleanup(srv.Close)
	out, _, code := runConformanceBin(t, srv.URL)
	if code != 1 || !strings.Contains(out, "FAIL card.skills  skills is non-empty with unique ids: skills is empty\n") {
		t.Errorf("exit %d, stdout:\n%s\nwant exit 1 with card.skills failed", code, out)
	}
}

// mur's own door passes: one well-formed line per check, then the totals.
func TestConformanceAgainstDoor_GO7(t *testing.T) {
	t.Parallel()
	url, token := serveTestDoor(t)
	out, errOut, code := runConformanceWith(t, []string{"MURMUR_CONFORMANCE_TOKEN_DOOR=" + token}, "", url)
	if code != 0 || errOut != "" {
		t.Errorf("exit %d, stderr %q; want 0 and nothing\n%s", code, errOut, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	ids := conformance.IDs()
	if len(lines) != len(ids)+1 {
		t.Fatalf("%d lines, want %d checks and the totals:\n%s", len(lines), len(ids), out)
	}
	line := regexp.MustCompile(`^(PASS \S+  [^:]+|SKIP \S+  .+: .+)$`)
	passed := 0
	for i, l := range lines[:len(ids)] {
		if !line.MatchString(l) || strings.Fields(l)[1] != ids[i] {
			t.Errorf("line %d = %q, want PASS or SKIP of %s", i+1, l, ids[i])
		}
		if strings.HasPrefix(l, "PASS ") {
			passed++
		}
	}
	if want := fmt.Sprintf("%d passed, 0 failed", passed); lines[len(ids)] != want {
		t.Errorf("last line %q, want %q", lines[len(ids)], want)
	}
}

// serveTestDoor serves an authenticated door in this process, with an
// executor that completes every task with "ok", until the test ends.
func serveTestDoor(t *testing.T) (url, token string) {
	t.Helper()
	reg, err := tasktable.New(tasktable.Config{Acceptance: tasktable.ModeQueue, QueueDepth: 64})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url = "http://" + ln.Addr().String()
	toks, err := door.MintTokens(nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := door.New(door.Config{
		Registry:   reg,
		Card:       agentcard.Config{Name: "conformer", Version: "0.1.0", URL: url},
		Acceptance: tasktable.ModeQueue,
		SessionID:  a2a.NewID(a2a.PrefixSession),
		Auth:       &door.Auth{Realm: "conformer", Tokens: toks},
	})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1) // Serve's one result
	go func() { served <- d.Serve(ln) }()
	ex := doortest.Start(reg, doortest.Complete("ok"))
	t.Cleanup(func() {
		ex.Stop()
		if err := d.Shutdown(context.Background()); err != nil {
			t.Errorf("door Shutdown() error = %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve() error = %v, want ErrServerClosed", err)
		}
	})
	return url, string(toks[0].Value)
}
