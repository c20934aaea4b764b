package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/harnesstest/clis"
	"github.com/murmur-go/mur/internal/testmur"
	anthropic "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	openai "github.com/murmur-go/mur/runtime/driver/openai/fake"
	"github.com/murmur-go/mur/runtime/harness"
	"github.com/murmur-go/mur/runtime/harness/bridge"
	"github.com/murmur-go/mur/runtime/tool"
)

// probe is one run of a real CLI against the fakes and a real bridge
// (process.md PTEST-9): what it printed and what the bridge was asked.
type probe struct {
	stdout, stderr string
	code           int
	calls          []bridge.Call
}

// rig is one probe's fake model, bridge and scratch HOME.
type rig struct {
	t     testing.TB
	d     harness.Dialect
	home  string // HOME
	hdir  string // <H>
	work  string // cwd
	br    *bridge.Server
	mu    sync.Mutex
	calls []bridge.Call
}

func newRig(t testing.TB, d harness.Dialect) *rig {
	root := t.TempDir()
	r := &rig{t: t, d: d, home: filepath.Join(root, "home"), hdir: filepath.Join(root, "H"), work: filepath.Join(root, "work")}
	for _, dir := range []string{r.home, r.hdir, r.work} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(r.hdir, harness.SystemPromptFile), []byte("[Capsule]\nname: probe\nversion: 1.0.0"), 0o600); err != nil {
		t.Fatal(err)
	}
	br, err := bridge.Start(bridge.Config{Version: "0.0.0-probe",
		Tools: []tool.Spec{{Name: "echo", Description: "Echo its command.", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}},
		Dispatch: func(_ context.Context, c bridge.Call) bridge.Answer {
			r.mu.Lock()
			r.calls = append(r.calls, c)
			r.mu.Unlock()
			return bridge.Answer{Text: "echoed " + string(c.Arguments)}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = br.Close(context.Background()) })
	r.br = br
	return r
}

// murDir holds the mur binary murBinary builds; TestMain removes it.
var murDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if murDir != "" {
		_ = os.RemoveAll(murDir)
	}
	os.Exit(code)
}

// murBinary builds the mur binary once: codex starts it as its MCP
// server (PROC-7's `mur __mcp-proxy`).
var murBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "mur-harness-test-")
	if err != nil {
		return "", err
	}
	murDir = dir
	bin := filepath.Join(dir, "mur")
	if out, err := testmur.Combined(exec.Command("go", "build", "-o", bin, "../../cmd/mur")); err != nil {
		return "", fmt.Errorf("go build mur: %v\n%s", err, out)
	}
	return bin, nil
})

// spawnArgs writes the dialect's bridge file (PROC-6's mcp.json, PROC-7's
// proxy file) and returns the run's argv and environment (PROC-8).
func (r *rig) spawnArgs(binary, model, resume string) ([]string, []string) {
	r.t.Helper()
	name, config, mur := harness.MCPConfigFile, r.br.ClaudeConfig(), ""
	if r.d.Key == "codex" {
		var err error
		if mur, err = murBinary(); err != nil {
			r.t.Fatal(err)
		}
		name, config = harness.ProxyConfigFile, r.br.ProxyConfig()
	}
	if err := os.WriteFile(filepath.Join(r.hdir, name), config, 0o600); err != nil {
		r.t.Fatal(err)
	}
	argv := r.d.Argv(harness.Run{Binary: binary, Dir: r.hdir, URL: r.br.URL(), Proxy: mur, Model: model, Resume: resume})
	env := r.d.Env([]string{"HOME", "PATH"}, func(n string) (string, bool) {
		if n == "HOME" {
			return r.home, true
		}
		return os.LookupEnv(n)
	})
	return argv, env
}

// run spawns the CLI as a run of the dialect (PROC-6/7/8) with prompt on
// stdin; extra are more environment entries.
func (r *rig) run(binary, model, resume, prompt string, extra ...string) probe {
	r.t.Helper()
	argv, env := r.spawnArgs(binary, model, resume)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdin = append(env, extra...), r.work, strings.NewReader(prompt)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	r.br.BeginRun()
	err := testmur.RunCmd(cmd)
	r.br.EndRun()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("run %s: %v", binary, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p := probe{stdout: out.String(), stderr: errb.String(), code: code, calls: r.calls}
	r.calls = nil
	return p
}

// save writes a capture to testdata/<dialect>-<version>/<name> under
// -update (PTEST-9 rewrites PTEST-2's testdata).
func save(t *testing.T, dir, name, text string) {
	t.Helper()
	if !golden.Update() {
		return
	}
	p := filepath.Join("testdata", dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// parse runs a dialect's parser over a capture.
func parse(d harness.Dialect, stdout string) []harness.Event {
	p := d.NewParser()
	var evs []harness.Event
	for _, l := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
		evs = append(evs, p.Line([]byte(l))...)
	}
	return append(evs, p.End()...)
}

// TestCapture re-runs the probes process.md calls verified against the
// installed CLIs and the project's fakes, checks each claim, and with
// -update rewrites the JSONL testdata the parser tests read (PTEST-9). It
// runs only under MURMUR_HARNESS_E2E=1.
func TestCapture(t *testing.T) {
	if !clis.Required() {
		t.Skipf("the capture test runs only under %s=1 (process.md PTEST-9)", clis.E2EEnv)
	}
	t.Run("claude", captureClaude)
	t.Run("codex", captureCodex)
}

func captureClaude(t *testing.T) {
	bin := clis.Claude(t)
	dir := "claude-code-" + clis.ClaudeVersion
	const token = "sk-ant-oat01-capture"
	fake := anthropic.NewHarness(anthropic.Config{APIKey: token})
	defer fake.Close()
	r := newRig(t, harness.Claude)
	clis.ClaudeHome(t, r.home, token)
	env := []string{"ANTHROPIC_BASE_URL=" + fake.URL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}

	// tool-call: a bridged call, the rate-limit windows, the answer.
	now := time.Now().Unix()
	first := anthropic.Uses(anthropic.ToolUse{Name: "mcp__mur__echo", Input: `{"command":"hi"}`})
	first.Header = anthropic.RateLimitHeaders(anthropic.Window{Status: "allowed", Utilization: 0.25, Reset: now + 3600},
		anthropic.Window{Status: "allowed_warning", Utilization: 0.8, Reset: now + 86400})
	first.Usage = &anthropic.Usage{InputTokens: 11, OutputTokens: 7}
	fake.Enqueue(first, anthropic.Reply{Text: "ANSWER", Usage: &anthropic.Usage{InputTokens: 11, OutputTokens: 7}})
	p := r.run(bin, "", "", "call echo", env...)
	save(t, dir, "tool-call.jsonl", p.stdout)
	if p.code != 0 || len(p.calls) != 1 || p.calls[0].Name != "echo" || !strings.HasPrefix(p.calls[0].ToolCallID, "toolu_fake_") {
		t.Fatalf("tool-call: exit %d, bridge calls %+v\nstdout %s\nstderr %s", p.code, p.calls, p.stdout, p.stderr)
	}
	reqs := fake.Requests()
	if len(reqs) < 1 || strings.Join(reqs[0].Decoded.ToolNames(), ",") != "mcp__mur__echo" {
		t.Errorf("tool-call: the model was sent tools %v, want only mcp__mur__echo (PROC-6, PROC-8)", reqs[0].Decoded.ToolNames())
	}
	evs := parse(harness.Claude, p.stdout)
	id := checkClaudeRun(t, "tool-call", evs, "ANSWER", true)
	var quota bool
	for _, e := range evs {
		if q, ok := e.(harness.QuotaReported); ok && len(q.Windows) == 2 && q.Windows[0].Name == "five-hour" && q.Windows[1].Name == "seven-day" {
			quota = true
		}
	}
	if !quota {
		t.Errorf("tool-call: no rate_limit_event with five-hour and seven-day windows (HEV-6)\n%s", p.stdout)
	}

	// resume: the same session, per-run tokens.
	fake.Enqueue(anthropic.Reply{Text: "RESUMED", Usage: &anthropic.Usage{InputTokens: 11, OutputTokens: 7}})
	p = r.run(bin, "", id, "go on", env...)
	save(t, dir, "resume.jsonl", p.stdout)
	if got := checkClaudeRun(t, "resume", parse(harness.Claude, p.stdout), "RESUMED", false); got != id {
		t.Errorf("resume: session %q, want the resumed %q (HEV-1)", got, id)
	}

	// lost-session: THR-4's shape.
	lost := "00000000-0000-4000-8000-000000000000"
	p = r.run(bin, "", lost, "go on", env...)
	save(t, dir, "lost-session.jsonl", p.stdout)
	if p.code != 1 || !strings.Contains(p.stderr, "No conversation found with session ID: "+lost) {
		t.Errorf("lost-session: exit %d, stderr %q; want 1 and No conversation found (THR-4)", p.code, p.stderr)
	}
	for _, e := range parse(harness.Claude, p.stdout) {
		if _, ok := e.(harness.SessionReported); ok {
			t.Errorf("lost-session: a session was reported (THR-4)")
		}
	}

	// bridge-failed: a closed port in mcp.json (HEV-8).
	closed := newRig(t, harness.Claude)
	clis.ClaudeHome(t, closed.home, token)
	_ = closed.br.Close(context.Background())
	fake.Enqueue(anthropic.Text("NO TOOLS"))
	p = closed.run(bin, "", "", "hello", env...)
	save(t, dir, "bridge-failed.jsonl", p.stdout)
	var failed bool
	for _, e := range parse(harness.Claude, p.stdout) {
		_, failed = e.(harness.BridgeFailed)
		if failed {
			break
		}
	}
	if !failed {
		t.Errorf("bridge-failed: init did not report mur not connected (HEV-8)\n%s", p.stdout)
	}
	// auth-failure: a 401, not retried with CLAUDE_CODE_MAX_RETRIES=0.
	// Claude Code asks again once even so (api_retry), so every request
	// is answered 401 from here on.
	fake.SetHandler(func(anthropic.HarnessCapture) anthropic.Reply {
		return anthropic.Status(401, "OAuth token has expired.")
	})
	p = r.run(bin, "", "", "hello", append(env, "CLAUDE_CODE_MAX_RETRIES=0")...)
	save(t, dir, "auth-failure.jsonl", p.stdout)
	if f := failedOf(parse(harness.Claude, p.stdout)); f == nil || f.Kind != harness.FailAuth {
		t.Errorf("auth-failure: %+v, want kind auth (HEV-7)\n%s", f, p.stdout)
	}

	if f := fake.Failures(); len(f) > 0 {
		t.Errorf("the fake found malformed requests: %v", f)
	}
}

// checkClaudeRun checks a completed claude run's events and returns its
// session id: subscription auth, turns, the answer, tokens per run.
func checkClaudeRun(t *testing.T, name string, evs []harness.Event, answer string, tool bool) string {
	t.Helper()
	id, sawTool := "", false
	var done *harness.Completed
	for _, e := range evs {
		switch e := e.(type) {
		case harness.SessionReported:
			if e.Auth != harness.AuthSubscription {
				t.Errorf("%s: auth %q, want subscription (PTEST-7)", name, e.Auth)
			}
			id = e.ID
		case harness.ToolCalled:
			sawTool = e.Name == "echo"
		case harness.Completed:
			done = &e
		}
	}
	if id == "" || done == nil || done.Answer != answer || sawTool != tool {
		t.Errorf("%s: session %q, completed %+v, tool %v; want %q", name, id, done, sawTool, answer)
	}
	if done != nil && (done.Usage.Input == nil || *done.Usage.Input != 11*int64(1+btoi(tool))) {
		t.Errorf("%s: usage %+v, want the run's own counts (HEV-5)", name, done.Usage)
	}
	return id
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func failedOf(evs []harness.Event) *harness.Failed {
	for _, e := range evs {
		if f, ok := e.(harness.Failed); ok {
			return &f
		}
	}
	return nil
}

func captureCodex(t *testing.T) {
	bin := clis.Codex(t)
	dir := "codex-" + clis.CodexVersion
	fake := openai.NewResponses(openai.Config{})
	defer fake.Close()
	r := newRig(t, harness.Codex)
	wrapper := clis.CodexWrapper(t, t.TempDir(), bin, fake.URL)
	const model = "fake-model" // a model codex has no metadata for: see the report on responses-lite

	fake.Enqueue(openai.Reply{ToolCalls: []openai.ToolCall{{Name: "echo", Namespace: "mcp__mur", Arguments: `{"command":"hi"}`}},
		Usage: &openai.Usage{PromptTokens: 11, CompletionTokens: 7}},
		openai.Reply{Text: "ANSWER", Usage: &openai.Usage{PromptTokens: 11, CompletionTokens: 7}})
	p := r.run(wrapper, model, "", "call echo")
	save(t, dir, "tool-call.jsonl", p.stdout)
	if p.code != 0 || len(p.calls) != 1 || p.calls[0].Name != "echo" {
		t.Fatalf("tool-call: exit %d, bridge calls %+v\nstdout %s\nstderr %s", p.code, p.calls, p.stdout, p.stderr)
	}
	reqs := fake.Requests()
	if got := toolNames(reqs[0].Decoded.Tools); got != "list_mcp_resources,list_mcp_resource_templates,read_mcp_resource,mcp__mur{echo}" {
		t.Errorf("tool-call: the model was sent tools %s (PROC-7)", got)
	}
	evs := parse(harness.Codex, p.stdout)
	id, total := codexRun(t, "tool-call", evs, "ANSWER")
	if total != 22 {
		t.Errorf("tool-call: input total %d, want 22 (HEV-5)", total)
	}

	fake.Enqueue(openai.Reply{Text: "RESUMED", Usage: &openai.Usage{PromptTokens: 11, CompletionTokens: 7}})
	p = r.run(wrapper, model, id, "go on")
	save(t, dir, "resume.jsonl", p.stdout)
	if got, total := codexRun(t, "resume", parse(harness.Codex, p.stdout), "RESUMED"); got != id || total != 33 {
		t.Errorf("resume: session %q total %d, want %q and the thread's running total 33 (HEV-5)", got, total, id)
	}

	p = r.run(wrapper, model, "00000000-0000-4000-8000-000000000000", "go on")
	save(t, dir, "lost-session.stderr", p.stderr)
	if p.code != 1 || strings.TrimSpace(p.stdout) != "" || !strings.Contains(p.stderr, "no rollout found for thread id") {
		t.Errorf("lost-session: exit %d, stdout %q, stderr %q (THR-4)", p.code, p.stdout, p.stderr)
	}

	closed := newRig(t, harness.Codex)
	_ = closed.br.Close(context.Background())
	p = closed.run(wrapper, model, "", "hello")
	save(t, dir, "bridge-failed.stderr", p.stderr)
	if p.code != 1 || !strings.Contains(p.stderr, "required MCP servers failed to initialize") {
		t.Errorf("bridge-failed: exit %d, stderr %q (HEV-8)", p.code, p.stderr)
	}
}

// codexRun returns a completed codex run's session and input total.
func codexRun(t *testing.T, name string, evs []harness.Event, answer string) (string, int64) {
	t.Helper()
	id := ""
	for _, e := range evs {
		switch e := e.(type) {
		case harness.SessionReported:
			id = e.ID
		case harness.Completed:
			if e.Answer != answer || e.Usage.Input == nil {
				t.Errorf("%s: completed %+v, want %q with usage", name, e, answer)
				return id, 0
			}
			return id, *e.Usage.Input
		}
	}
	t.Errorf("%s: no turn.completed", name)
	return id, 0
}

// toolNames renders a Responses request's tools: name, and a namespace's
// tools in braces.
func toolNames(raw []json.RawMessage) string {
	var out []string
	for _, r := range raw {
		var t struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(r, &t)
		if t.Type == "namespace" {
			var in []string
			for _, x := range t.Tools {
				in = append(in, x.Name)
			}
			out = append(out, t.Name+"{"+strings.Join(in, ",")+"}")
			continue
		}
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
}
