package main

import (
	"encoding/json"
	"strings"
	"testing"

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
func statusContext(t *testing.T, srv *fake.Server) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("requests = %d", len(reqs))
	}
	msgs := reqs[1].Decoded.Messages
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
