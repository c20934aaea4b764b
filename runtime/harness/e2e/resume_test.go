package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// Under transport: process with lifecycle.conversation: threaded, mur run
// --resume continues the harness's own session: the resumed launch task's
// run resumes the session the context's harness-session.json names.
// Under stateless there is nothing to continue: E-RUN-017.
func TestResumeThreaded(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "lifecycle:\n  conversation: threaded\n", `{"runs":[
		{"steps":[{"answer":"one"}]},
		{"steps":[{"answer":"two"}]}]}`)
	first, _, stderr, code := c.run(t, "first")
	if code != 0 {
		t.Fatalf("first run: exit %d, stderr %s", code, stderr)
	}
	cmd := c.command("run", "--json", "--resume", "--task", "again")
	stdout, stderr, code := testmur.Exec(t, cmd)
	noneLeft(t, cmd.Process.Pid)
	if code != 0 {
		t.Fatalf("resume: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	was := of[trace.HarnessSession](t, records(t, first.RecordsDir))
	var again readiness
	line, _, _ := strings.Cut(stdout, "\n")
	if err := json.Unmarshal([]byte(line), &again); err != nil {
		t.Fatalf("readiness line %q: %v", line, err)
	}
	if b, err := os.ReadFile(filepath.Join(again.RecordsDir, "out", "result.txt")); err != nil || string(b) != "two" {
		t.Errorf("resumed result = %q (%v), want two", b, err)
	}
	starts := of[trace.HarnessStart](t, records(t, again.RecordsDir))
	if len(was) != 1 || len(starts) != 1 || starts[0].Mode != "resume" || starts[0].HarnessSessionID == nil || *starts[0].HarnessSessionID != was[0].HarnessSessionID {
		t.Fatalf("first run's harness_session %+v, resumed run's harness_start %+v; want a resume of that session", was, starts)
	}

	s := newCap(t, "claude", "", "", `{"runs":[{"steps":[{"answer":"one"}]}]}`)
	if _, _, stderr, code := s.run(t, "first"); code != 0 {
		t.Fatalf("stateless run: exit %d, %s", code, stderr)
	}
	cmd = s.command("run", "--resume", "--task", "again")
	_, stderr, code = testmur.Exec(t, cmd)
	if code != 1 || !strings.HasPrefix(stderr, "error[E-RUN-017]: ") || !strings.Contains(stderr, "inference.transport: process") {
		t.Errorf("stateless resume: exit %d, stderr %q, want E-RUN-017", code, stderr)
	}
}
