// Package capsuletest starts capsules in the test's own process: each is
// capsule.Serve over a real session, behind a real door on a loopback
// listener, so that what two capsules do together — a member call, a peer
// file, a question to a caller — is tested without starting mur. A
// Formation makes capsules members of one formation through the channel a
// launcher would hand them. Delegated children are still real processes:
// Config.Mur names the binary they run. For tests only.
package capsuletest

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/capsule"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/session"
)

// Config says which capsule Start serves and how.
type Config struct {
	// Dir is the capsule's directory, which holds its murmur.yaml.
	Dir string
	// Home is $MURMUR_HOME.
	Home string
	// Task is the launch task (mur run --task); nil means none.
	Task *string
	// Env is the environment Prepare reads over this process's, without its
	// MURMUR_ variables: MURMUR_DELEGATION_TIMEOUT_SECS, a formation
	// member's variables (Formation.Member).
	Env map[string]string
	// Mur is the mur binary delegated children run.
	Mur string
}

// Capsule is one capsule served in this process.
type Capsule struct {
	capsule.Serving
	// Stdout and Stderr are what mur run would have printed.
	Stdout, Stderr *testmur.Buffer

	cancel context.CancelFunc
	done   chan struct{} // closed once Serve has returned
	res    capsule.Result
	err    error
}

// Start prepares the capsule and serves it on a loopback listener; it
// returns once the door serves. The capsule is stopped, as by a first
// SIGTERM, and waited for when the test ends, if it has not ended before.
func Start(t testing.TB, cfg Config) *Capsule {
	t.Helper()
	getenv := func(k string) string {
		if v, ok := cfg.Env[k]; ok {
			return v
		}
		if k == "MURMUR_HOME" {
			return cfg.Home
		}
		if strings.HasPrefix(k, "MURMUR_") {
			return ""
		}
		return os.Getenv(k)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	l, err := session.Prepare(session.Options{ManifestPath: cfg.Dir + "/murmur.yaml", Task: cfg.Task, Getenv: getenv, Cwd: cwd, Version: "0.0.0-test"})
	if err != nil {
		t.Fatalf("prepare %s: %v", cfg.Dir, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Capsule{Stdout: &testmur.Buffer{}, Stderr: &testmur.Buffer{}, cancel: cancel, done: make(chan struct{})}
	serving := make(chan capsule.Serving, 1) // buffered: Serve never waits for the test
	sc := capsule.Config{Home: cfg.Home, Stdout: c.Stdout, Stderr: c.Stderr, Mur: cfg.Mur,
		Serving: func(s capsule.Serving) { serving <- s }}
	go func() {
		defer close(c.done)
		c.res, c.err = capsule.Serve(ctx, l, ln, sc)
	}()
	t.Cleanup(func() { c.Stop(t) })
	select {
	case c.Serving = <-serving:
	case <-c.done:
		t.Fatalf("capsule %s ended before its door served: %v\nstderr:\n%s", cfg.Dir, c.err, c.Stderr)
	}
	return c
}

// Wait waits for the session's own end (LOOP-20) and returns how it ended.
func (c *Capsule) Wait(t testing.TB) capsule.Result {
	t.Helper()
	<-c.done
	if c.err != nil {
		t.Errorf("capsule %s: %v", c.SessionID, c.err)
	}
	return c.res
}

// Stop winds the capsule down as a first SIGTERM does (SES-8) and waits.
func (c *Capsule) Stop(t testing.TB) capsule.Result {
	t.Helper()
	c.cancel()
	return c.Wait(t)
}

// Client is an A2A client of the capsule's door, with its operator token on
// an authenticated door.
func (c *Capsule) Client(t testing.TB) *client.Client {
	t.Helper()
	cfg := client.Config{BaseURL: c.URL, RequestTimeout: time.Minute}
	if len(c.Tokens) > 0 {
		cfg.Token = string(c.Tokens[0].Value)
	}
	cl, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}
