package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// TestTraceShowLiveAndFollow: a running session's trace is shown
// as it is so far, marked live, by its full id from any directory; --follow
// prints its timeline as records arrive and ends at its session_end.
func TestTraceShowLiveAndFollow(t *testing.T) {
	t.Parallel()
	e := blockingCapsule(t, "", "cat go")
	goFifo := filepath.Join(e.dir, "go")
	if err := syscall.Mkfifo(goFifo, 0o600); err != nil {
		t.Fatal(err)
	}
	run := e.start(t, "--json", "--task", "wait for go")
	var ready struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(run.line(t)), &ready); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	trace := func(args ...string) *exec.Cmd {
		cmd := exec.Command(murBin, append([]string{"trace", "show", ready.SessionID}, args...)...)
		cmd.Dir, cmd.Env = elsewhere, []string{"PATH=" + os.Getenv("PATH"), "MURMUR_HOME=" + e.home, "HOME=" + e.home}
		return cmd
	}

	follow := trace("--follow")
	out, err := follow.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var ferr testmur.Buffer
	follow.Stderr = &ferr
	if err := testmur.Start(follow); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var got []string
	for lines.Scan() { // until the model's first turn, which waits on bash
		got = append(got, lines.Text())
		if strings.HasSuffix(lines.Text(), "  turn 0: tool_call bash") {
			break
		}
	}
	if len(got) == 0 || !strings.Contains(got[0], "  session "+ready.SessionID+" started: blocker v1.0.0") {
		t.Fatalf("--follow printed %q; stderr %q", got, ferr.String())
	}

	// Meanwhile the summary reads the trace without its session_end.
	if show, errb, code := testmur.Exec(t, trace()); code != 0 || !strings.Contains(show, "status:     running (live: no session_end yet)\n") {
		t.Errorf("mur trace show on a running session = %d, %q, %q", code, show, errb)
	}
	if show, _, code := testmur.Exec(t, trace("--json")); code != 0 || !strings.Contains(show, `"status":"running","live":true`) {
		t.Errorf("mur trace show --json on a running session = %d, %q", code, show)
	}

	if err := os.WriteFile(goFifo, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		got = append(got, lines.Text())
	}
	if err := follow.Wait(); err != nil {
		t.Fatalf("--follow ended %v; stderr %q", err, ferr.String())
	}
	tail := strings.Join(got[len(got)-4:], "\n")
	for _, want := range []string{"  ✓ bash ", "task tsk_", " ended ok: 2 turns", "  session ended ok"} {
		if !strings.Contains(tail, want) {
			t.Errorf("--follow's last lines lack %q:\n%s", want, tail)
		}
	}
	if code := run.wait(); code != 0 {
		t.Errorf("mur run exited %d: %s", code, run.stderr.String())
	}
}
