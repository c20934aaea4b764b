package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/harnesstest/clis"
	"github.com/murmur-go/mur/internal/testmur"
	anthropic "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	openai "github.com/murmur-go/mur/runtime/driver/openai/fake"
)

// claudeToken is the OAuth access token of the scratch login (PTEST-7).
const claudeToken = "sk-ant-oat01-mur-e2e"

// realClaude is a capsule whose harness is the real Claude Code, signed
// in as on a subscription and pointed at the fake Anthropic server in
// harness mode (PTEST-5, PTEST-6, PTEST-7). extra is appended to the
// manifest; shell lists capabilities.shell.allow.
func realClaude(t *testing.T, shell, inference, extra string) (*hcap, *anthropic.HarnessServer) {
	t.Helper()
	bin := clis.Claude(t)
	fake := anthropic.NewHarness(anthropic.Config{APIKey: claudeToken})
	t.Cleanup(fake.Close)
	root := testmur.TempDir(t)
	c := &hcap{dir: filepath.Join(root, "capsule"), home: filepath.Join(root, "mhome"), hhome: filepath.Join(root, "hhome")}
	clis.ClaudeHome(t, c.hhome, claudeToken)
	mkdirs(t, c.dir)
	c.write(t, "murmur.yaml", fmt.Sprintf(`name: hx-claude
version: "0.1.0"
capabilities:
  env: {allow: [HOME, PATH, ANTHROPIC_BASE_URL, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC]}
  shell: {allow: [%s]}
inference:
  transport: process
  command: %s
%strace:
  capture: content
%s`, shell, bin, inference, extra))
	c.env = []string{"HOME=" + c.hhome, "ANTHROPIC_BASE_URL=" + fake.URL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	return c, fake
}

// realCodex is a capsule whose harness is the real Codex CLI through the
// PTEST-7 wrapper, pointed at the fake Responses server, on a model it has
// no metadata for (see process.md's note on code mode in the report).
func realCodex(t *testing.T, inference, extra string) (*hcap, *openai.ResponsesServer) {
	t.Helper()
	bin := clis.Codex(t)
	fake := openai.NewResponses(openai.Config{})
	t.Cleanup(fake.Close)
	root := testmur.TempDir(t)
	c := &hcap{dir: filepath.Join(root, "capsule"), home: filepath.Join(root, "mhome"), hhome: filepath.Join(root, "hhome")}
	mkdirs(t, c.dir, c.hhome, filepath.Join(root, "bin"))
	wrapper := clis.CodexWrapper(t, filepath.Join(root, "bin"), bin, fake.URL)
	c.write(t, "murmur.yaml", fmt.Sprintf(`name: hx-codex
version: "0.1.0"
capabilities:
  env: {allow: [HOME, PATH]}
  shell: {allow: [echo]}
inference:
  transport: process
  command: %s
  model: fake-model
%strace:
  capture: content
%s`, wrapper, inference, extra))
	// The wrapper execs the installed codex, which a contained harness
	// may run from its PATH only.
	c.env = []string{"HOME=" + c.hhome, "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	return c, fake
}

// rateLimits are a subscription's five-hour and seven-day windows.
func rateLimits() map[string]string {
	now := time.Now().Unix()
	return anthropic.RateLimitHeaders(anthropic.Window{Status: "allowed", Utilization: 0.25, Reset: now + 3600},
		anthropic.Window{Status: "allowed_warning", Utilization: 0.8, Reset: now + 86400})
}

// lastUser is the text of a captured request's last message.
func lastUser(t testing.TB, r anthropic.HarnessCapture) string {
	t.Helper()
	ms := r.Decoded.Messages
	if len(ms) == 0 || ms[len(ms)-1].Role != "user" {
		t.Fatalf("request's last message is not a user message: %s", r.Body)
	}
	return ms[len(ms)-1].Text()
}

func noFailures(t testing.TB, f []string) {
	t.Helper()
	if len(f) > 0 {
		t.Errorf("the fake found malformed requests: %v", f)
	}
}

// quotaOf decodes session-status's quota names from a tool result.
func quotaOf(t testing.TB, output string) []string {
	t.Helper()
	var rep struct {
		Quota []struct {
			Name string `json:"name"`
		} `json:"quota"`
	}
	if err := json.Unmarshal([]byte(unfence(t, output)), &rep); err != nil {
		t.Fatalf("session-status %q: %v", output, err)
	}
	var out []string
	for _, q := range rep.Quota {
		out = append(out, q.Name)
	}
	return out
}
