package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
)

// TestLiveStatusOnTerminal: while the model has not answered
// for more than 2 s, `mur run` on a terminal shows one status line,
// redrawn in place, and clears it when the model answers; the same run with
// stderr on a pipe, waiting on the model just as long, writes none. The
// model answers only once the terminal has shown "3s", so both waits
// pass 2 s without any timed wait in the test.
func TestLiveStatusOnTerminal(t *testing.T) {
	t.Parallel()
	model := fake.New(fake.Config{APIKey: "sk-test", Model: "m"})
	t.Cleanup(model.Close)
	model.Enqueue(fake.Text("slow answer"), fake.Text("slow answer"))
	u, _ := url.Parse(model.URL)
	proxy := httputil.NewSingleHostReverseProxy(u)
	arrived := make(chan struct{}, 2) // one per run
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(gate.Close)
	t.Cleanup(open) // runs before gate.Close: a held request never blocks Close
	files := map[string]string{
		"murmur.yaml": "name: slow\nversion: \"1.0.0\"\ninference:\n  driver: {kind: openai, model: m, endpoint: \"" + gate.URL +
			"\", api_key: \"${TEST_OPENAI_KEY}\"}\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	}

	piped := newRunEnv(t, files).command("--task", "x")
	var pipeOut, pipeErr bytes.Buffer
	piped.Stdout, piped.Stderr = &pipeOut, &pipeErr
	piped.Env = append(piped.Env, "TERM=xterm")
	if err := testmur.Start(piped); err != nil {
		t.Fatal(err)
	}
	<-arrived

	ptm, pts := openPTY(t)
	onTTY := newRunEnv(t, files).command("--task", "x")
	onTTY.Env = append(onTTY.Env, "TERM=xterm")
	onTTY.Stdout, onTTY.Stderr = pts, pts
	if err := testmur.Start(onTTY); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	<-arrived

	var out bytes.Buffer
	buf := make([]byte, 4096)
	for !strings.Contains(out.String(), "mur: waiting on model, 3s") {
		n, err := ptm.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			t.Fatalf("the terminal closed before the status showed 3s: %v\n%q", err, out.String())
		}
	}
	open()
	_, err := io.Copy(&out, ptm)
	var pe interface{ Unwrap() error }
	if err != nil && !(errors.As(err, &pe) && errors.Is(err, syscall.EIO)) {
		t.Fatal(err)
	}
	_ = onTTY.Wait()
	if err := piped.Wait(); err != nil {
		t.Fatalf("the piped run: %v; stderr %q", err, pipeErr.String())
	}

	got := out.String()
	if !strings.Contains(got, "\r\x1b[Kmur: waiting on model, 2s\r\x1b[Kmur: waiting on model, 3s") {
		t.Errorf("the terminal lacks the status redrawn in place:\n%q", got)
	}
	last := strings.LastIndex(got, "mur: waiting on model, ")
	answer := strings.Index(got, "slow answer")
	clear := strings.Index(got[last:], "\r\x1b[K")
	if answer < 0 || clear < 0 || last+clear > answer || strings.Contains(got[answer:], "waiting on model") {
		t.Errorf("the status is not cleared before the answer:\n%q", got)
	}
	if strings.Contains(pipeErr.String(), "waiting on model") || strings.Contains(pipeErr.String(), "\x1b") {
		t.Errorf("stderr on a pipe = %q, want no status line", pipeErr.String())
	}
	if !strings.Contains(pipeOut.String(), "slow answer\nstatus:  ok\n") {
		t.Errorf("the piped run's stdout = %q", pipeOut.String())
	}
}
