package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/session"
)

// A start that fails once the tools are built (a full disk, here the test
// build's fault knob) ends with its coded error and exit 1, not a Go panic,
// and leaves a whole trace: session_start through session_end failed (SES-3).
func TestRunStartFailureEndsInOrder_SES3(t *testing.T) {
	e := helloEnv(t)
	cmd := e.command("--capsule", e.dir, "--task", "list the files")
	cmd.Env = append(cmd.Env, session.StartFaultEnv+"=after_tools")
	out, err := testmur.Combined(cmd)
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatal(err)
	}
	if code != 1 || strings.Contains(string(out), "panic") || strings.Contains(string(out), "goroutine ") {
		t.Fatalf("exit %d, output %q; want exit 1 and no Go stack", code, out)
	}
	if !strings.Contains(string(out), "error[E-IO-001]: ") || !strings.Contains(string(out), ": no space left on device\n") {
		t.Errorf("output = %q, want the E-IO-001 diagnostic", out)
	}
	wd, _ := filepath.EvalSymlinks(e.dir)
	recs, _ := filepath.Glob(filepath.Join(e.home, "records", strings.TrimPrefix(wd, "/"), "ses_*"))
	if len(recs) != 1 {
		t.Fatalf("records dirs = %v, want one", recs)
	}
	types := traceTypes(t, recs[0])
	if len(types) < 2 || types[0] != "session_start" || types[len(types)-1] != "session_end" {
		t.Fatalf("trace = %v, want session_start … session_end", types)
	}
	b, err := os.ReadFile(filepath.Join(recs[0], "trace.jsonl"))
	if err != nil || !strings.Contains(string(b), `"exit_status":"failed"`) {
		t.Errorf("trace = %s (%v), want session_end exit_status failed", b, err)
	}
	if log, _ := os.ReadFile(filepath.Join(recs[0], "logs", "bootstrap.log")); !strings.Contains(string(log), "no space left on device") {
		t.Errorf("bootstrap.log = %q, want the failure", log)
	}
	if ents, _ := os.ReadDir(filepath.Join(e.home, "running")); len(ents) != 0 || slices.ContainsFunc(types, func(s string) bool { return s == "task_start" }) {
		t.Errorf("running records %v, trace %v: nothing should have run", ents, types)
	}
}

// The start failures no manifest or flag causes reach the user coded, each
// ending the start in order with exit 1: the task table (E-RUN-050) and the
// launch task's submit (E-RUN-051), injected by the test build's knob.
// (They used to print an uncoded "error: …".)
func TestRunStartFailuresAreCoded(t *testing.T) {
	for _, c := range []struct{ point, want string }{
		{"task_table", "error[E-RUN-050]: the session's task table could not be made: injected fault\n"},
		{"launch_task", "error[E-RUN-051]: the launch task could not be submitted: injected fault\n"},
	} {
		t.Run(c.point, func(t *testing.T) {
			e := helloEnv(t)
			cmd := e.command("--capsule", e.dir, "--task", "list the files")
			cmd.Env = append(cmd.Env, session.StartFaultEnv+"="+c.point)
			out, _ := testmur.Combined(cmd)
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), c.want) || strings.Contains(string(out), "\nerror: ") || strings.HasPrefix(string(out), "error: ") {
				t.Errorf("exit %d, output %q; want exit 1 and %q", code, out, c.want)
			}
		})
	}
}
