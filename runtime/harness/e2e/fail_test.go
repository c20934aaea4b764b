package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/session"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestFailures is PROC-18 with HEV-7's and HEV-8's kinds: the task fails
// harness_error with E-RUN-033's message, printed once; harness_failed
// names the kind with source harness.
func TestFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, dialect, script, kind, msg string
		cause                            string
	}{
		{"claude auth", "claude", `{"runs":[{"steps":[{"fail":{"status":401,"message":"Failed to authenticate. API Error: 401 OAuth token has expired."}}]}]}`,
			"auth", "Failed to authenticate. API Error: 401 OAuth token has expired.", "failed"},
		{"claude max turns of its own", "claude", `{"runs":[{"steps":[{"fail":{"subtype":"error_max_turns","message":"Reached maximum number of turns"}}]}]}`,
			"max-turns", "Reached maximum number of turns", "failed"},
		{"codex quota", "codex", `{"runs":[{"steps":[{"fail":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}]}]}`,
			"quota", "exceeded retry limit, last status: 429 Too Many Requests", "failed"},
		{"no terminal line", "claude", `{"runs":[{"steps":[{"exit":3}]}]}`,
			"other", "the harness exited with status 3 before reporting an outcome", "crashed"},
		{"claude bridge refused", "claude", `{"runs":[{"bad_token":true,"steps":[{"answer":"never"}]}]}`,
			"harness-error", "the harness could not connect to the loopback tool server", "interrupted"},
		{"codex bridge refused", "codex", `{"runs":[{"bad_token":true,"steps":[{"answer":"never"}]}]}`,
			"harness-error", "the harness could not connect to the loopback tool server", "crashed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			hc := newCap(t, c.dialect, "", "", c.script)
			r, _, stderr, code := hc.run(t, "go")
			reason := "the harness turn failed (" + c.kind + "): " + c.msg
			if res := result(t, r); code != 1 || res != "error: "+reason {
				t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
			}
			if want := "error[E-RUN-033]: " + reason + "\n"; strings.Count(stderr, "E-RUN-033") != 1 || !strings.Contains(stderr, want) {
				t.Errorf("stderr = %q, want E-RUN-033 once: %q", stderr, want)
			}
			recs := records(t, r.RecordsDir)
			if f := only[trace.HarnessFailed](t, recs); f.Kind != c.kind || f.Source != "harness" || f.Message != c.msg {
				t.Errorf("harness_failed = %+v", f)
			}
			if f := only[trace.TaskFailed](t, recs); f.Cause != "harness_error" || f.Reason != reason {
				t.Errorf("task_failed = %+v", f)
			}
			if ex := only[trace.HarnessExit](t, recs); ex.Cause != c.cause {
				t.Errorf("harness_exit.cause = %q, want %q", ex.Cause, c.cause)
			}
		})
	}
}

// TestRestartWhenLost is PROC-13: a keep_working resume whose session the
// harness lost restarts the task with a new run whose prompt is task.md.
func TestRestartWhenLost(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "lifecycle:\n  keep_working: {limit: 1}\n", `{"runs":[
		{"steps":[{"forget":true},{"answer":"first"}]},
		{"steps":[{"answer":"unreachable"}]},
		{"steps":[{"answer":"after the restart"}]}]}`)
	r, _, stderr, code := c.run(t, "the task")
	if res := result(t, r); code != 0 || res != "after the restart" {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	starts := of[trace.HarnessStart](t, records(t, r.RecordsDir))
	if len(starts) != 3 || starts[1].Mode != "resume" || starts[2].Mode != "new" || starts[2].PromptKind != "restart" {
		t.Fatalf("harness_start = %+v", starts)
	}
	task, err := os.ReadFile(filepath.Join(r.Workdir, ".murmur", r.SessionID, "task.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.calls(t)[2].Stdin; got != string(task) || got != "the task" {
		t.Errorf("the restart's prompt = %q, want task.md %q", got, task)
	}
}

// TestWarnings: W-SEC-031 for a harness on an API key, once per session
// (HEV-9), and W-RUN-002 for a version the dialect was not tested against
// (PROC-10); both as harness_warning.
func TestWarnings(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "  harness: codex\n", "", `{"runs":[{"steps":[{"answer":"fine"}]}]}`)
	r, _, stderr, code := c.run(t, "go")
	want := "warning[W-RUN-002]: the harness reports version '2.1.328 (Claude Code)', which this build's codex dialect was not tested against (tested against 0.169.0)\n"
	if code != 0 || stderr != want {
		t.Errorf("mur run = %d, stderr %q, want %q", code, stderr, want)
	}
	recs := records(t, r.RecordsDir)
	if w := only[trace.HarnessWarning](t, recs); w.Code != "W-RUN-002" || w.Message+"\n" != strings.TrimPrefix(want, "warning[W-RUN-002]: ") {
		t.Errorf("harness_warning = %+v", w)
	}
	if st := only[trace.HarnessStart](t, recs); *st.VersionTested {
		t.Errorf("harness_start.version_tested = true")
	}

	k := newCap(t, "claude", "", "lifecycle:\n  keep_working: {limit: 1}\n", `{"runs":[{"steps":[{"answer":"one"}]},{"steps":[{"answer":"two"}]}]}`)
	k.env = append(k.env, "FAKE_HARNESS_AUTH=api-key")
	r, _, stderr, code = k.run(t, "go")
	want = "warning[W-SEC-031]: the harness session reports auth 'api-key', not 'subscription' — this run's spend may be billed to an API key rather than to the subscription this transport exists for\n"
	if code != 0 || stderr != want {
		t.Errorf("mur run = %d, stderr %q, want W-SEC-031 once over two runs", code, stderr)
	}
	recs = records(t, r.RecordsDir)
	if w := only[trace.HarnessWarning](t, recs); w.Code != "W-SEC-031" {
		t.Errorf("harness_warning = %+v", w)
	}
	for _, s := range of[trace.HarnessSession](t, recs) {
		if s.Auth != "api-key" {
			t.Errorf("harness_session = %+v", s)
		}
	}
}

// TestRefusedLaunch is PROC-3 and PROC-4 through mur run: each refusal is
// printed with its code and hint, and nothing is written (no records or
// runtime directory, no harness run).
func TestRefusedLaunch(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, manifest, want string }{
		{"not found", "command: no-such-harness-binary\n",
			"error[E-RUN-006]: harness binary 'no-such-harness-binary', named by inference.command, was not found on this host\n  hint: install the harness, or point inference.command at the executable to run\n"},
		{"the dialect's default", "harness: codex\n", ""},
		{"not executable", "command: ./murmur.yaml\n",
			"error[E-RUN-006]: harness binary './murmur.yaml', named by inference.command, was not found on this host\n  hint: install the harness, or point inference.command at the executable to run\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			hc := newCap(t, "claude", "", "", `{"runs":[{"steps":[]}]}`)
			hc.write(t, "murmur.yaml", "name: hx\nversion: \"0.1.0\"\ncapabilities: {env: {allow: [HOME, PATH]}}\ninference:\n  transport: process\n  "+c.manifest)
			hc.env = append(hc.env, "PATH=/usr/bin:/bin")
			want := c.want
			if want == "" {
				want = "error[E-RUN-006]: harness binary 'codex', named by the codex dialect's default, was not found on this host\n  hint: install the harness, or point inference.command at the executable to run\n"
			}
			cmd := hc.command("run", "--task", "x")
			out, stderr, code := execCmd(t, cmd)
			if code != 1 || stderr != want || out != "" {
				t.Errorf("mur run = %d\nstdout %q\nstderr %q\nwant %q", code, out, stderr, want)
			}
			if _, err := os.Stat(filepath.Join(hc.home, "records")); !os.IsNotExist(err) {
				t.Errorf("a refused launch wrote records: %v", err)
			}
			if _, err := os.Stat(filepath.Join(hc.dir, ".murmur")); !os.IsNotExist(err) {
				t.Errorf("a refused launch wrote a runtime directory: %v", err)
			}
		})
	}
}

// A process session whose loopback tool server cannot listen (the test
// build's knob) refuses its start with E-RUN-049 and exit 1, and starts no
// harness. (It used to print an uncoded "error: start the loopback tool
// server: …".)
func TestBridgeListenFailureIsCoded(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "", `{"runs":[{"steps":[{"answer":"never"}]}]}`)
	c.env = append(c.env, session.StartFaultEnv+"=bridge")
	cmd := c.command("run", "--task", "hello")
	_, stderr, code := testmur.Exec(t, cmd)
	if want := "error[E-RUN-049]: the loopback tool server could not start: injected fault\n"; code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
	}
	if _, err := os.Stat(c.state("calls.jsonl")); !os.IsNotExist(err) {
		t.Errorf("the harness was started: %v", err)
	}
}
