package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
)

// budgetCapsule is an openai capsule with the model limits given as YAML
// lines: a top-level block and the driver block's config.
func budgetCapsule(url, top, config string) string {
	return "name: budget\nversion: \"1.0.0\"\n" + top + "inference:\n  max_tokens: 4096\n  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + url +
		"\n    api_key: ${TEST_OPENAI_KEY}\n    config: " + config + "\n"
}

// statusContext is session-status's context object as the model read it in
// the request after the call.
func statusContext(t *testing.T, srv *fake.Server) string { return statusAt(t, srv, 1) }

// statusAt is the context object of the session-status result request
// number req (from 0) ends in.
func statusAt(t *testing.T, srv *fake.Server, req int) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= req {
		t.Fatalf("requests = %d", len(reqs))
	}
	msgs := reqs[req].Decoded.Messages
	text := msgs[len(msgs)-1].Text()
	var obj struct {
		Context json.RawMessage `json:"context"`
	}
	if err := json.NewDecoder(strings.NewReader(text[strings.Index(text, "{"):])).Decode(&obj); err != nil {
		t.Fatalf("session-status result %q: %v", text, err)
	}
	return string(obj.Context)
}

// TestSessionStatusContextBudget_DRV10 is the input budget session-status
// reports through the binary: min(config.max_input_tokens, the window less
// the output cap sent), context.max_tokens overriding the choice's window,
// the conversation measured by the provider's count when it sent one.
func TestSessionStatusContextBudget_DRV10(t *testing.T) {
	for _, c := range []struct {
		name, top, config string
		usage             *fake.Usage
		want              string
	}{
		{"context.max_tokens overrides the window", "context:\n  max_tokens: 32000\n", "{context_window_tokens: 200000, max_input_tokens: 30000}",
			&fake.Usage{PromptTokens: 1200, CompletionTokens: 30},
			`{"used_tokens":1230,"window_tokens":32000,"budget_tokens":27904,"budget_basis":"context_window_less_output_cap","measured_by":"actual"}`},
		{"the input ceiling is smaller", "", "{context_window_tokens: 200000, max_input_tokens: 30000}",
			&fake.Usage{PromptTokens: 900, CompletionTokens: 12},
			`{"used_tokens":912,"window_tokens":200000,"budget_tokens":30000,"budget_basis":"max_input_tokens","measured_by":"actual"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test"})
			defer srv.Close()
			call := fake.Calls(fake.ToolCall{Name: "session-status", Arguments: `{}`})
			call.Usage = c.usage
			srv.Enqueue(call, fake.Text("done"))
			e := newRunEnv(t, map[string]string{"murmur.yaml": budgetCapsule(srv.URL, c.top, c.config), ".env": "TEST_OPENAI_KEY=sk-test\n"})
			stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "how full is it")
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
			}
			if got := statusContext(t, srv); got != c.want {
				t.Errorf("context = %s\nwant      %s", got, c.want)
			}
		})
	}
}

// TestSessionStatusContextNoWindow_DRV10: a choice with no window has no
// budget, and without the provider's count the conversation is the
// runtime's estimate.
func TestSessionStatusContextNoWindow_DRV10(t *testing.T) {
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test"})
	defer srv.Close()
	srv.Enqueue(fake.Calls(fake.ToolCall{Name: "session-status", Arguments: `{}`}), fake.Text("done"))
	e := newRunEnv(t, map[string]string{"murmur.yaml": budgetCapsule(srv.URL, "", "{max_input_tokens: 30000}"), ".env": "TEST_OPENAI_KEY=sk-test\n"})
	if stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "how full is it"); code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	got := statusContext(t, srv)
	var ctx struct {
		Used   int64  `json:"used_tokens"`
		Window string `json:"window_tokens"`
		Budget string `json:"budget_tokens"`
		Basis  string `json:"budget_basis"`
		By     string `json:"measured_by"`
	}
	if err := json.Unmarshal([]byte(got), &ctx); err != nil {
		t.Fatalf("context %s: %v", got, err)
	}
	// The estimate is ceil(bytes/4) of the whole request sent, plus the reply's tool input.
	body := len(srv.Requests()[0].Body)
	if want := int64((body+3)/4) + 1; ctx.Used != want || ctx.Window != "none" || ctx.Budget != "none" || ctx.Basis != "none" || ctx.By != "estimate" {
		t.Errorf("context = %s, want used_tokens %d and none/estimate", got, want)
	}
}

// TestZeroInputBudgetRefused_DRV10: a window the output cap fills is
// refused at launch, E-MAN-003, before any call.
func TestZeroInputBudgetRefused_DRV10(t *testing.T) {
	for _, c := range []struct{ name, top, config, want string }{
		{"config window", "", "{context_window_tokens: 4096}",
			"inference.driver.config.context_window_tokens: leaves no input budget: the window 4096 less the output cap 4096 (inference.max_tokens) is 0"},
		{"context.max_tokens", "context:\n  max_tokens: 1000\n", "{context_window_tokens: 200000}",
			"context.max_tokens: leaves no input budget: the window 1000 less the output cap 4096 (inference.max_tokens) is -3096"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test"})
			defer srv.Close()
			e := newRunEnv(t, map[string]string{"murmur.yaml": budgetCapsule(srv.URL, c.top, c.config), ".env": "TEST_OPENAI_KEY=sk-test\n"})
			stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "anything")
			if code == 0 || !strings.Contains(stderr, "error[E-MAN-003]: ") || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("requests = %d, want none", n)
			}
		})
	}
}

// TestSessionStatusAfterCompaction_DRV10: session-status shows the figures
// the compaction check used. After a turn: the provider's count of the
// last call (actual). After a compaction at the threshold (the provider's
// count 13,020 ≥ 0.8 × 14,976): the compaction record's tokens_before is
// that count, and session-status reads the replacement's size — the
// record's tokens_after, measured_by estimate.
func TestSessionStatusAfterCompaction_DRV10(t *testing.T) {
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test", ContextWindow: 16000})
	defer srv.Close()
	turn := func(usage int64, name, args string) fake.Reply {
		r := fake.Calls(fake.ToolCall{Name: name, Arguments: args})
		r.Usage = &fake.Usage{PromptTokens: usage, CompletionTokens: 20}
		return r
	}
	srv.Enqueue(
		turn(500, "session-status", `{}`),
		turn(600, "bash", `{"command":"echo a"}`),
		turn(700, "bash", `{"command":"echo b"}`),
		turn(13000, "session-status", `{}`),
		fake.Text("the agent checked its status and echoed a and b"), // the summary call
		fake.Text("done"),
	)
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: budget\nversion: \"1.0.0\"\ncontext:\n  max_tokens: 16000\nartifacts:\n  - {name: murmur-hook-compact, version: 1.0.0, runtime: hook}\n" +
			"inference:\n  max_tokens: 1024\n  compaction: {threshold: 0.8}\n  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + srv.URL +
			"\n    api_key: ${TEST_OPENAI_KEY}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	})
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "how full is it")
	if code != 0 || !strings.Contains(stdout, "done") {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 || len(reqs[4].Decoded.Tools) != 0 || len(srv.Failures()) != 0 {
		t.Fatalf("requests = %d (the fifth the summary call), failures %v", len(reqs), srv.Failures())
	}
	status := func(req int) string { return statusAt(t, srv, req) }
	if got, want := status(1), `{"used_tokens":520,"window_tokens":16000,"budget_tokens":14976,"budget_basis":"context_window_less_output_cap","measured_by":"actual"}`; got != want {
		t.Errorf("after a turn: context = %s\nwant                  %s", got, want)
	}
	cs := recordsOf(t, sessionRecords(t, e), "compaction")
	if len(cs) != 1 {
		t.Fatalf("compaction records = %v", cs)
	}
	after := int64(cs[0]["tokens_after"].(float64))
	if cs[0]["tokens_before"] != 13020.0 || cs[0]["tokens_before_source"] != "actual" || cs[0]["hook_name"] != "murmur-hook-compact" || after >= 13020 || after <= 0 {
		t.Errorf("compaction = %v", cs[0])
	}
	want := fmt.Sprintf(`{"used_tokens":%d,"window_tokens":16000,"budget_tokens":14976,"budget_basis":"context_window_less_output_cap","measured_by":"estimate"}`, after)
	if got := status(5); got != want {
		t.Errorf("after a compaction: context = %s\nwant                         %s", got, want)
	}
	// mur trace show --json carries the record as the trace holds it.
	cmd := exec.Command(murBin, "trace", "show", filepath.Base(sessionRecords(t, e)), "--json")
	cmd.Dir, cmd.Env = e.dir, []string{"PATH=" + os.Getenv("PATH"), "MURMUR_HOME=" + e.home, "HOME=" + e.home}
	out, errOut, code := testmur.Exec(t, cmd)
	var doc struct {
		Compaction struct {
			Compacted []map[string]any `json:"compacted"`
			Declined  []map[string]any `json:"declined"`
		} `json:"compaction"`
	}
	body := map[string]any{}
	for k, v := range cs[0] {
		if !strings.Contains(" event_id event_type parent_id session_id timestamp ", " "+k+" ") {
			body[k] = v
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || len(doc.Compaction.Compacted) != 1 || len(doc.Compaction.Declined) != 0 ||
		fmt.Sprint(doc.Compaction.Compacted[0]) != fmt.Sprint(body) {
		t.Errorf("trace show --json = %d (%v): compaction %+v, want %v\n%s", code, err, doc.Compaction, body, errOut)
	}
}

// sessionRecords is the records directory of e's one session.
func sessionRecords(t *testing.T, e *runEnv) string {
	t.Helper()
	wd, _ := filepath.EvalSymlinks(e.dir)
	recs, _ := filepath.Glob(filepath.Join(e.home, "records", strings.TrimPrefix(wd, "/"), "ses_*"))
	if len(recs) != 1 {
		t.Fatalf("records = %v", recs)
	}
	return recs[0]
}
