package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/harnesstest/clis"
	"github.com/murmur-go/mur/internal/testmur"
	anthropic "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	"github.com/murmur-go/mur/runtime/trace"
)

// workerScript is the scripted peer's whole behaviour.
const workerScript = `script_version: 1
rules: []
fallback:
  turns:
    - text: "WORKER-0123"
`

// TestRealClaudeFormation is PTEST-8 (c): a two-member formation whose
// entry is the real Claude Code and whose peer worker is a scripted
// capsule. The entry's first request answers with a call-member tool use,
// its second with text; worker answers WORKER-0123; the runtime resumes the
// entry's session with the RND-2 message — the fake's third request ends
// with exactly it — and the fake's final text is the entry's answer
// (PROC-12, RND-1..3).
func TestRealClaudeFormation(t *testing.T) {
	t.Parallel()
	bin := clis.Claude(t)
	fake := anthropic.NewHarness(anthropic.Config{APIKey: claudeToken})
	defer fake.Close()
	root := testmur.TempDir(t)
	proj, home, hhome := filepath.Join(root, "proj"), filepath.Join(root, "mhome"), filepath.Join(root, "hhome")
	clis.ClaudeHome(t, hhome, claudeToken)
	files := map[string]string{
		"lead/murmur.yaml": fmt.Sprintf(`name: e2e-lead
version: "0.1.0"
capabilities:
  env: {allow: [HOME, PATH, ANTHROPIC_BASE_URL, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC]}
  network: {allow: [localhost]}
inference:
  transport: process
  command: %s
network:
  authentication: {scheme: bearer}
trace:
  capture: content
`, bin),
		"worker/murmur.yaml": `name: e2e-worker
version: "0.1.0"
inference:
  driver: {kind: scripted, script: script.yaml}
lifecycle: {task_acceptance: queue, after_task: sleep}
exports:
  peer_tasks: {accept: true}
network:
  authentication: {scheme: bearer}
`,
		"worker/script.yaml": workerScript,
		"roster.yaml": `roster_version: 1
members:
  - {name: lead, capsule: e2e-lead, version: "0.1.0", entry: true}
  - {name: worker, capsule: e2e-worker, version: "0.1.0"}
reachability:
  - {from: lead, to: [worker]}
`,
	}
	for rel, body := range files {
		mkdirs(t, filepath.Dir(filepath.Join(proj, rel)))
		if err := os.WriteFile(filepath.Join(proj, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := testmur.Env(home, "HOME="+hhome, "ANTHROPIC_BASE_URL="+fake.URL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	for _, m := range []string{"lead", "worker"} {
		cmd := exec.Command(mur, "install", m)
		cmd.Dir, cmd.Env = proj, env
		if out, err := testmur.Combined(cmd); err != nil {
			t.Fatalf("mur install %s: %v\n%s", m, err, out)
		}
	}
	fake.Enqueue(anthropic.Uses(anthropic.ToolUse{Name: "mcp__mur__call-member", Input: `{"member":"worker","task":"Give me the code word."}`}),
		anthropic.Text("Asked the worker; waiting for its answer."))
	fake.SetHandler(func(r anthropic.HarnessCapture) anthropic.Reply {
		got := r.Decoded.Messages[len(r.Decoded.Messages)-1].Text()
		i := strings.Index(got, "WORKER-")
		if i < 0 {
			return anthropic.Text("no worker answer in the resume")
		}
		return anthropic.Text("The worker says " + got[i:i+len("WORKER-0123")] + ".")
	})
	cmd := exec.Command(mur, "run", "--roster", ".", "--json", "--task", "What is the code word?")
	cmd.Dir, cmd.Env = proj, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var stderr testmur.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	werr := cmd.Wait()
	noneLeft(t, cmd.Process.Pid)
	if werr != nil || len(lines) < 2 {
		t.Fatalf("mur run --roster: %v, stdout %q, stderr %s", werr, lines, stderr.String())
	}
	var entry readiness
	if err := json.Unmarshal([]byte(lines[1]), &entry); err != nil {
		t.Fatal(err)
	}
	if res := result(t, entry); res != "The worker says WORKER-0123." {
		t.Errorf("the entry's answer = %q; stderr %s", res, stderr.String())
	}
	recs := records(t, entry.RecordsDir)
	mc := only[trace.MemberCall](t, recs)
	if mc.Status != "completed" || !mc.Delivered {
		t.Errorf("member_call = %+v, want completed and delivered", mc)
	}
	only[trace.TaskContinued](t, recs)
	starts, sess := of[trace.HarnessStart](t, recs), of[trace.HarnessSession](t, recs)
	if len(starts) != 2 || starts[0].Mode != "new" || starts[1].Mode != "resume" || starts[1].PromptKind != "continuation" ||
		*starts[1].HarnessSessionID != sess[0].HarnessSessionID {
		t.Errorf("harness_start = %+v, harness_session %+v", starts, sess)
	}
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests to the fake, want 3", len(reqs))
	}
	want := "[call-member] call " + mc.CallID + " to worker ended completed:\n<untrusted-content source=member:worker>\nWORKER-0123\n</untrusted-content>\n\n" +
		"[call-member] Every call this task made has ended, and the answers are above. Answer the task with them now; call a member again only to give it new work."
	if got := lastUser(t, reqs[2]); got != want {
		t.Errorf("the resume's last user message =\n%q\nwant the RND-2 message\n%q", got, want)
	}
	noFailures(t, fake.Failures())
}
