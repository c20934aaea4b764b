package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	anthropicfake "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
)

// TestPromptCachePrefix: two sessions of one capsule send byte-identical
// request bodies up to the first task message — model, tools in their fixed
// order, the system prompt — with the per-session [Session] block after the
// task; the anthropic driver marks cache breakpoints on the last tool and
// the system prompt; the provider's cached-token counts reach the trace and
// mur trace show --json's tokens.cached (LOOP-6, DRV-5, DRV-6).
func TestPromptCachePrefix(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"openai", "anthropic"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var url string
			var bodies func() [][]byte
			var breakpoints func(t *testing.T)
			switch kind {
			case "openai":
				srv := fake.New(fake.Config{APIKey: "sk-test"})
				t.Cleanup(srv.Close)
				srv.SetHandler(func(fake.Request) fake.Reply {
					return fake.Reply{Text: "done", Usage: &fake.Usage{PromptTokens: 1200, CompletionTokens: 2, CachedTokens: ptr(1024)}}
				})
				url = srv.URL
				bodies = func() [][]byte {
					var out [][]byte
					for _, r := range srv.Requests() {
						out = append(out, r.Body)
					}
					return out
				}
				breakpoints = func(*testing.T) {}
			default:
				srv := anthropicfake.New(anthropicfake.Config{APIKey: "sk-test"})
				t.Cleanup(srv.Close)
				srv.SetHandler(func(anthropicfake.Request) anthropicfake.Reply {
					return anthropicfake.Reply{Text: "done", Usage: &anthropicfake.Usage{InputTokens: 176, OutputTokens: 2,
						CacheReadInputTokens: ptr(1024), CacheCreationInputTokens: ptr(0)}}
				})
				url = srv.URL
				bodies = func() [][]byte {
					var out [][]byte
					for _, r := range srv.Requests() {
						out = append(out, r.Body)
					}
					return out
				}
				breakpoints = func(t *testing.T) {
					for _, r := range srv.Requests() {
						tools, sys := r.Decoded.Tools, r.Decoded.System
						if len(tools) == 0 || tools[len(tools)-1].CacheControl == nil || len(sys) != 1 || sys[0].CacheControl == nil {
							t.Errorf("no cache breakpoint on the last tool and the system prompt: %s", r.Body)
						}
					}
					if f := srv.Failures(); len(f) > 0 {
						t.Errorf("bad requests: %v", f)
					}
				}
			}
			e := newRunEnv(t, map[string]string{
				"murmur.yaml": "name: cached\nversion: \"1.0.0\"\ninference:\n  driver: {kind: " + kind + ", model: m, endpoint: \"" + url +
					"\", api_key: \"${TEST_KEY}\"}\n  system_prompt: You answer briefly.\ncapabilities:\n  shell:\n    allow: [bash, ls]\n",
				".env": "TEST_KEY=sk-test\n",
			})
			for _, task := range []string{"the first task", "another task entirely"} {
				if out, errOut, code := e.run(t, "--capsule", e.dir, "--task", task); code != 0 {
					t.Fatalf("mur run %q = %d\n%s%s", task, code, out, errOut)
				}
			}
			bs := bodies()
			if len(bs) != 2 {
				t.Fatalf("%d requests, want one per session", len(bs))
			}
			var prefixes [2][]byte
			for i, b := range bs {
				at := bytes.Index(b, []byte(`{"role":"user"`))
				if at < 0 {
					t.Fatalf("request %d has no user message: %s", i, b)
				}
				prefixes[i] = b[:at]
				if regexp.MustCompile(`ses_[0-9a-f]{32}|127\.0\.0\.1:\d+|` + regexp.QuoteMeta(e.dir)).Match(prefixes[i]) {
					t.Errorf("request %d's prefix holds a session id, the door or the workdir: %s", i, prefixes[i])
				}
				if !regexp.MustCompile(`\[Session\]\\nsession: ses_[0-9a-f]{32}\\ndoor: http://127\.0\.0\.1:\d+\\nworkdir: `).Match(b[at:]) {
					t.Errorf("request %d lacks the [Session] block after the task: %s", i, b[at:])
				}
			}
			if !bytes.Equal(prefixes[0], prefixes[1]) || len(prefixes[0]) == 0 {
				t.Errorf("the two sessions' prefixes differ:\n%s\n%s", prefixes[0], prefixes[1])
			}
			if !bytes.Contains(prefixes[0], []byte(`"name":"bash"`)) || !bytes.Contains(prefixes[0], []byte("You answer briefly.")) {
				t.Errorf("the prefix lacks the tools or the system prompt: %s", prefixes[0])
			}
			breakpoints(t)

			cmd := exec.Command(murBin, "trace", "show", "--json")
			cmd.Dir = e.dir
			cmd.Env = append(os.Environ(), "MURMUR_HOME="+e.home)
			out, errOut, code := testmur.Exec(t, cmd)
			var sum struct {
				Tokens struct {
					Cached     *int64 `json:"cached"`
					CacheWrite *int64 `json:"cache_write"`
				} `json:"tokens"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || sum.Tokens.Cached == nil || *sum.Tokens.Cached != 1024 {
				t.Errorf("trace show --json = %d %s %s; want tokens.cached 1024 from the provider's usage", code, out, errOut)
			}
		})
	}
}

func ptr(n int64) *int64 { return &n }
