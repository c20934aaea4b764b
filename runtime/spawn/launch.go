package spawn

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/supervisor"
	"github.com/murmur-go/mur/runtime/wire"
)

// launch resolves, referees (the envelope) and starts req's child, then
// hands it its task (DLG-2, DLG-3). Its slot is held; handed reports that a
// started child took it over (it gives it back once reaped), else the caller
// releases it on error.
func (h *Hub) launch(ctx context.Context, req Request) (c *Child, handed bool, err error) {
	r, err := h.cfg.Stores.Resolve(req.Capsule, req.Version)
	switch {
	case errors.Is(err, store.ErrNotInstalled):
		return nil, false, &LaunchError{Output: fmt.Sprintf("capsule '%s@%s' is not installed in the project or the global store", req.Capsule, req.Version)}
	case err != nil:
		return nil, false, &LaunchError{Output: fmt.Sprintf("capsule '%s@%s' could not be read from its store: %v", req.Capsule, req.Version, err)}
	}
	cm, err := manifest.LoadGrants(filepath.Join(r.TreeDir, manifest.FileName))
	if err != nil {
		return nil, false, &LaunchError{Output: fmt.Sprintf("capsule '%s@%s' has a manifest that does not load: %v", req.Capsule, req.Version, err)}
	}
	if ref := envelope(h.cfg.Parent, cm); ref != nil {
		return nil, false, ref
	}
	if ctx.Err() != nil {
		return nil, false, &LaunchError{Output: canceledBeforeStart(req.Capsule)}
	}
	if c, err = h.start(req, r, envAllow(cm)); err != nil {
		return nil, false, err
	}
	if err := h.await(ctx, c); err != nil {
		c.stopAndReap()
		return nil, true, err
	}
	if req.Ready != nil {
		req.Ready(c)
	}
	if err := h.handOver(ctx, c, req.Task); err != nil {
		c.stopAndReap()
		return nil, true, err
	}
	c.hand()
	return c, true, nil
}

func canceledBeforeStart(capsule string) string {
	return fmt.Sprintf("the delegating task ended before %s held the task", capsule)
}

// start makes the child's directory and lifeline and starts its `mur run`
// (DLG-3, DLG-6).
func (h *Hub) start(req Request, r store.Resolved, childEnv []string) (*Child, error) {
	fail := func(format string, a ...any) error {
		return &LaunchError{Output: fmt.Sprintf("%s could not be started: ", req.Capsule) + fmt.Sprintf(format, a...)}
	}
	children := filepath.Join(h.cfg.Workdir, ".murmur", "children")
	if err := os.MkdirAll(children, 0o700); err != nil {
		return nil, fail("%v", err)
	}
	dir := filepath.Join(children, childDirName(req.Capsule))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fail("%v", err)
	}
	c := &Child{ID: req.ID, Capsule: req.Capsule, Version: req.Version, Workdir: dir, hub: h,
		completionToken: token("mdc_"), doorToken: token("mdt_"),
		exited: make(chan struct{}), done: make(chan struct{}), ready: make(chan wire.Ready, 1)}
	c.RelWorkdir, _ = filepath.Rel(h.cfg.Workdir, dir)
	lifeR, lifeW, err := os.Pipe() // close-on-exec: no other subprocess inherits either end
	if err != nil {
		return nil, fail("%v", err)
	}
	hl := wire.SpawnerHello{DelegationID: req.ID, Depth: h.cfg.Depth + 1,
		CompletionToken: c.completionToken, DoorToken: c.doorToken}
	if _, err := lifeW.Write(hl.Line()); err != nil { // a pipe holds it until the child reads it
		lifeR.Close()
		lifeW.Close()
		return nil, fail("%v", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		lifeR.Close()
		lifeW.Close()
		return nil, fail("%v", err)
	}
	cmd := exec.Command(h.cfg.Mur, h.args(req, r, dir)...)
	cmd.Dir = h.cfg.Cwd
	cmd.Env = h.env(req, c, childEnv)
	cmd.ExtraFiles = []*os.File{lifeR} // fd 3, MURMUR_SPAWNER_LIFELINE
	cmd.Stdout = outW
	c.log = newChildLog(h.cfg.LogsDir, req.ID)
	cmd.Stderr = c.log
	// Its own group, so a stop reaches what it runs in it; no parent-death
	// signal: a child winds down from its lifeline's EOF (DLG-6).
	cmd.WaitDelay = time.Second // a grandchild holding stderr does not hold the reaping
	c.started = time.Now()
	p, err := supervisor.Start(cmd, supervisor.Options{Grace: h.cfg.Timing.Exit})
	lifeR.Close() // the child holds its own copy now; the parent holds only the write end
	outW.Close()
	if err != nil {
		lifeW.Close()
		outR.Close()
		c.log.close()
		return nil, fail("%v", err)
	}
	c.proc, c.life, c.stdout = p, lifeW, outR
	h.mu.Lock()
	h.children[c.ID] = c
	h.mu.Unlock()
	h.wg.Go(c.readStdout)
	h.wg.Go(c.wait)
	return c, nil
}

// args is DLG-3's command line: the installed capsule, bound to the bytes
// the referee judged, in its own directory, with the parent's deadline.
func (h *Hub) args(req Request, r store.Resolved, dir string) []string {
	acceptance, after := "single", "exit"
	if req.Stay {
		acceptance, after = "queue", "sleep"
	}
	a := []string{"run", "--capsule", req.Capsule, "--capsule-version", req.Version, "--capsule-sha256", r.SHA256,
		"--workdir", dir, "--json", "--lifecycle-task-acceptance", acceptance, "--lifecycle-after-task", after}
	if h.cfg.NoEnvFile {
		a = append(a, "--no-env-file")
	}
	if p := h.cfg.Stores.ProjectDir; p != "" {
		a = append(a, "--store-root", p)
	}
	if d := h.cfg.Deadline; d != nil {
		a = append(a, "--inherited-deadline", strconv.FormatInt(d.UnixMilli(), 10))
	}
	return a
}

// env is DLG-3's environment, and nothing else: PATH, HOME, MURMUR_SPAWNER,
// MURMUR_SPAWNER_LIFELINE, MURMUR_FORMATION_ID in a formation, the names
// both capsules' env.allow list that the parent holds — and MURMUR_HOME, so
// the child's records, running record and global store are the parent's
// (without it a child would write under ~/.murmur), and the Pass
// names the parent has set (its OTEL_* variables).
func (h *Hub) env(req Request, c *Child, childEnv []string) []string {
	get := h.cfg.Getenv
	var env []string
	add := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	add("PATH", get("PATH"))
	add("HOME", get("HOME"))
	add("MURMUR_HOME", get("MURMUR_HOME"))
	add("MURMUR_FORMATION_ID", h.cfg.FormationID)
	for _, n := range h.cfg.Pass {
		if !strings.HasPrefix(n, "MURMUR_") {
			add(n, get(n))
		}
	}
	for _, n := range childEnv {
		if slices.Contains(envAllow(h.cfg.Parent), n) && !strings.HasPrefix(n, "MURMUR_") && !slices.Contains(h.cfg.Pass, n) {
			add(n, get(n))
		}
	}
	trust := req.Trust
	if trust != string(a2a.TrustTrusted) {
		trust = string(a2a.TrustUntrusted)
	}
	add(EnvSpawner, Handle{SessionID: h.cfg.SessionID, ContextID: req.ContextID, DelegationID: req.ID, URL: h.cfg.URL, Trust: trust}.String())
	add(EnvLifeline, "3")
	return env
}

// envAllow is m's capabilities.env.allow, nil when absent: under http the
// key acts only for delegated children (process.md PROC-3).
func envAllow(m *manifest.Manifest) []string {
	if e := m.Capabilities.Env; e != nil {
		return e.Allow
	}
	return nil
}

// await waits for the child's readiness line (DLG-3: within Timing.Ready).
func (h *Hub) await(ctx context.Context, c *Child) error {
	t := time.NewTimer(h.cfg.Timing.Ready)
	defer t.Stop()
	select {
	case rl := <-c.ready:
		c.SessionID, c.URL, c.RecordsDir = rl.SessionID, rl.URL, rl.RecordsDir
		c.readyAt(rl)
		cl, err := client.New(client.Config{BaseURL: rl.URL, Token: c.doorToken})
		if err != nil {
			return &LaunchError{Output: fmt.Sprintf("%s reported a door that cannot be used", c.Capsule), SessionID: c.SessionID}
		}
		if err := h.checkCard(ctx, rl.URL); err != nil {
			return &LaunchError{Output: fmt.Sprintf("%s's Agent Card does not verify against its spawner's card key (%v), so the door at its address may not be the child this session started; the task was not handed over",
				c.Capsule, err), SessionID: c.SessionID}
		}
		c.cl = cl
		c.Ready = time.Now()
		return nil
	case <-c.exited:
		return &LaunchError{Output: fmt.Sprintf("%s ended before it was ready: %s", c.Capsule, c.exitText())}
	case <-t.C:
		return &LaunchError{Output: fmt.Sprintf("%s did not report ready within %ds", c.Capsule, int(h.cfg.Timing.Ready/time.Second))}
	case <-ctx.Done():
		return &LaunchError{Output: canceledBeforeStart(c.Capsule)}
	}
}

// handOver sends the task by SendMessage with returnImmediately, retried
// while the door comes up, for at most Timing.Deliver (DLG-3); the child
// holds it once its door answers a task id in a non-terminal state.
func (h *Hub) handOver(ctx context.Context, c *Child, task string) error {
	tm := h.cfg.Timing
	deadline := time.Now().Add(tm.Deliver)
	req := a2a.SendMessageRequest{
		Message:       a2a.Message{MessageID: a2a.PrefixMessage + strings.TrimPrefix(c.ID, a2a.PrefixDelegation), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(task)}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	}
	failed := func(why string) error { return &LaunchError{Output: why, SessionID: c.SessionID} }
	wait := 50 * time.Millisecond
	for {
		rctx, cancel := context.WithTimeout(ctx, tm.Request)
		resp, err := c.cl.SendMessage(rctx, req)
		cancel()
		switch {
		case ctx.Err() != nil:
			return failed(canceledBeforeStart(c.Capsule))
		case err != nil && client.IsNoAnswer(err):
			if time.Now().Add(wait).After(deadline) {
				return failed(fmt.Sprintf("%s's door did not take the task within %ds: %s", c.Capsule, int(tm.Deliver/time.Second), client.Classify(err)))
			}
		case err != nil:
			return failed(refusedWhy(c.Capsule, err))
		case resp.Task == nil:
			return failed(fmt.Sprintf("%s's door answered a message, not a task", c.Capsule))
		case resp.Task.Status.State.Terminal():
			why := fmt.Sprintf("%s did not take the task: it answered %s", c.Capsule, resp.Task.Status.State)
			if m := resp.Task.Status.Message; m != nil && a2a.Text(m.Parts) != "" {
				why += ": " + a2a.Text(m.Parts)
			}
			return failed(why)
		default:
			c.TaskID = string(resp.Task.ID)
			return nil
		}
		select {
		case <-time.After(wait):
		case <-c.exited:
			return failed(fmt.Sprintf("%s ended before it held the task: %s", c.Capsule, c.exitText()))
		case <-ctx.Done():
			return failed(canceledBeforeStart(c.Capsule))
		}
		wait = min(2*wait, time.Second)
	}
}

// readStdout reads the child's readiness line, then discards the rest
// (a child under --json writes nothing more) until the child ends.
func (c *Child) readStdout() {
	br := bufio.NewReaderSize(c.stdout, 64<<10)
	line, err := br.ReadSlice('\n')
	if err == nil {
		if rl, err := wire.ParseReady(line); err == nil && sessionID.MatchString(rl.SessionID) && rl.URL != "" {
			c.ready <- rl // buffered 1: one line
		}
	}
	_, _ = br.WriteTo(discard{})
}

// discard swallows the child's stdout after its readiness line.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// refusedWhy is the sentence for a door that answered the task with an
// error.
func refusedWhy(capsule string, err error) string {
	var re *a2a.Error
	var he *client.HTTPError
	switch {
	case errors.As(err, &re):
		return fmt.Sprintf("%s's door refused the task with JSON-RPC error %d: %s", capsule, re.Code, re.Message)
	case errors.As(err, &he):
		msg := he.Message
		if msg == "" {
			msg = http.StatusText(he.Status)
		}
		return fmt.Sprintf("%s's door answered HTTP %d: %s", capsule, he.Status, msg)
	}
	return fmt.Sprintf("%s's door answered something that is not an A2A answer", capsule)
}

// checkCard verifies the child's Agent Card at url with the spawner's card
// key (A2A §8.4.3); nil when it verifies or there is no key.
func (h *Hub) checkCard(ctx context.Context, url string) error {
	if h.cfg.CardKey == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.Timing.Request)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(url, "/")+a2a.WellKnownCardPath, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("its card could not be fetched: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("its card could not be read: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("its card answered HTTP %d", resp.StatusCode)
	}
	_, err = agentcard.Verify(b, h.cfg.CardKey)
	return err
}
