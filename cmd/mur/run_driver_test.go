package main

import (
	"strings"
	"testing"

	anthropicfake "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
)

// TestRunOpenAIFake_DRV5 runs a capsule whose primary is the openai driver,
// pointed at the in-process fake (DRV-9): a tool call round trip, then the
// answer.
func TestRunOpenAIFake_DRV5(t *testing.T) {
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test"})
	defer srv.Close()
	srv.Enqueue(
		fake.Calls(fake.ToolCall{Name: "bash", Arguments: `{"command":"echo from-the-shell"}`}),
		fake.Text("the shell said from-the-shell"),
	)
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: openai-capsule\nversion: \"1.0.0\"\ninference:\n  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + srv.URL +
			"\n    api_key: ${TEST_OPENAI_KEY}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	})
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "say something")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	if !strings.HasSuffix(stdout, "the shell said from-the-shell\nstatus:  ok\n") {
		t.Errorf("stdout = %q", stdout)
	}
	if f := srv.Failures(); len(f) > 0 {
		t.Errorf("bad requests: %v", f)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d", len(reqs))
	}
	last := reqs[1].Decoded.Messages
	if tool := last[len(last)-1]; tool.Role != "tool" || !strings.Contains(tool.Text(), "Stdout:\nfrom-the-shell\n") {
		t.Errorf("tool message sent back = %+v", tool)
	}
	if sys := reqs[0].Decoded.Messages[0]; sys.Role != "system" || sys.Text() != "[Capsule]\nname: openai-capsule\nversion: 1.0.0" {
		t.Errorf("system message = %q", sys.Text())
	}
	// The task, then the session's own context (LOOP-6).
	if m := reqs[0].Decoded.Messages; len(m) < 3 || m[1].Text() != "say something" || !strings.HasPrefix(m[2].Text(), "[Session]\nsession: ses_") {
		t.Errorf("first messages = %+v", m)
	}
}

// TestRunCredentialRejected_ERUN027 is DRV-4's 401: E-RUN-027 then E-RUN-040.
func TestRunCredentialRejected_ERUN027(t *testing.T) {
	srv := fake.New(fake.Config{APIKey: "sk-right"})
	defer srv.Close()
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: keyed\nversion: \"1\"\ninference:\n  driver: {kind: openai, model: m, endpoint: \"" + srv.URL + "\", api_key: \"${TEST_OPENAI_KEY}\"}\n",
		".env":        "TEST_OPENAI_KEY=sk-wrong\n",
	})
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "x")
	if code != 1 || !strings.HasSuffix(stdout, "status:  failed\n") {
		t.Errorf("= %d, %q", code, stdout)
	}
	want := "error[E-RUN-027]: the provider rejected the inference credential TEST_OPENAI_KEY from the environment (HTTP 401); it is read once at launch\n" +
		"  hint: restart the capsule with a valid TEST_OPENAI_KEY\n" +
		"error[E-RUN-040]: the task ended failed: the provider rejected the inference credential TEST_OPENAI_KEY from the environment (HTTP 401); it is read once at launch\n"
	if !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr = %q\nwant prefix %q", stderr, want)
	}
}

// TestRunAnthropicEndpointRule: an anthropic endpoint given with a trailing
// /v1 is refused before anything starts, naming the URL to write; written as
// it says, the capsule runs against the fake (DRV-6: never a bare
// 404 from /v1/v1/messages).
func TestRunAnthropicEndpointRule(t *testing.T) {
	srv := anthropicfake.New(anthropicfake.Config{APIKey: "sk-ant"})
	defer srv.Close()
	srv.Enqueue(anthropicfake.Text("hello from claude"))
	manifest := func(endpoint string) map[string]string {
		return map[string]string{
			"murmur.yaml": "name: claude\nversion: \"1.0.0\"\ninference:\n  driver:\n    kind: anthropic\n    model: claude-test\n    endpoint: " + endpoint + "\n    api_key: ${TEST_ANTHROPIC_KEY}\n",
			".env":        "TEST_ANTHROPIC_KEY=sk-ant\n",
		}
	}
	e := newRunEnv(t, manifest(srv.URL+"/v1"))
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "hi")
	want := "error[E-MAN-003]: " + e.dir + "/murmur.yaml:7:15: inference.driver.endpoint: '" + srv.URL + "/v1' ends in /v1, but the anthropic driver posts to <endpoint>/v1/messages itself; write '" + srv.URL + "', the base URL its SDK takes\n"
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, want) || len(srv.Requests()) != 0 {
		t.Fatalf("endpoint .../v1 = %d %q\n%q\nwant prefix %q", code, stdout, stderr, want)
	}
	e = newRunEnv(t, manifest(srv.URL))
	stdout, stderr, code = e.run(t, "--capsule", e.dir, "--task", "hi")
	if code != 0 || !strings.HasSuffix(stdout, "hello from claude\nstatus:  ok\n") {
		t.Errorf("endpoint as written = %d %q %q", code, stdout, stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Path != "/v1/messages" {
		t.Errorf("requests = %+v", reqs)
	}
}
