package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/store"
)

// frmEnv is an in-process Env with buffers and the given variables.
func frmEnv(vars map[string]string) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }}, &out, &errb
}

const crewSummary = `Scaffolded formation 'crew' in ./crew
  crew/roster.yaml          lead is the entry member; lead may call worker
  crew/lead/murmur.yaml     capsule crew-lead@0.1.0, scripted driver
  crew/worker/murmur.yaml   capsule crew-worker@0.1.0, serves peers, scripted driver

Next:
  cd crew
  mur install lead
  mur install worker
  mur run --roster . --task "<your task>"
`

// TestNewRoster covers FCLI-9: the files, the exact stdout, and the refusals.
func TestNewRoster(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	env, out, errb := frmEnv(nil)
	if code := newRoster(context.Background(), env, []string{"--roster", "crew"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if out.String() != crewSummary {
		t.Errorf("stdout =\n%s\nwant\n%s", out, crewSummary)
	}
	for _, f := range []string{"roster.yaml", "lead/murmur.yaml", "lead/script.yaml", "worker/murmur.yaml", "worker/script.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, "crew", f)); err != nil {
			t.Error(err)
		}
	}
	lead, _ := os.ReadFile(filepath.Join(dir, "crew", "lead", "script.yaml"))
	if want := "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: call-member, input: {member: worker, task: \"{{task}}\"}}]\n      - text: \"worker has the task; waiting for its answer.\"\n      - text: \"{{member_answer}}\"\n"; string(lead) != want {
		t.Errorf("lead/script.yaml =\n%s", lead)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("cwd holds %v; the temp directory was left behind", ents)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--roster", "crew"}, 1, "error[E-NEW-003]: ./crew already exists\n  hint: choose another name or move it away\n"},
		{[]string{"--roster", "Crew"}, 1, "error[E-NEW-002]: 'Crew' is not an artifact name: it holds 'C'; only a-z, 0-9 and - are allowed\n  hint: use [a-z0-9-], 1–100 characters, no leading or trailing -\n"},
		{[]string{"--roster", strings.Repeat("a", 94)}, 1, "error[E-NEW-002]: '" + strings.Repeat("a", 94) + "-worker' is not an artifact name: it is 101 characters long; at most 100 are allowed\n  hint: use [a-z0-9-], 1–100 characters, no leading or trailing -\n"},
		{[]string{"--roster", "team", "build a thing"}, 2, "error: mur new --roster takes one name and no task description\nrun 'mur new --help' for usage\n"},
		{[]string{"--roster", "team", "--registry", "x"}, 2, "error: --registry cannot be used with --roster\nrun 'mur new --help' for usage\n"},
		{[]string{"--roster"}, 2, "error: --roster needs a formation name\nrun 'mur new --help' for usage\n"},
	}
	for _, tt := range tests {
		env, out, errb := frmEnv(nil)
		code := newRoster(context.Background(), env, tt.args)
		if code != tt.code || errb.String() != tt.want || out.Len() != 0 {
			t.Errorf("mur new %v = %d, %q, stdout %q; want %d, %q", tt.args, code, errb, out, tt.code, tt.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a refusal wrote %v", ents)
	}
}

// installCrew scaffolds crew in dir and installs both members globally.
func installCrew(t *testing.T, dir, home string) {
	t.Helper()
	t.Chdir(dir)
	env, _, errb := frmEnv(nil)
	if code := newRoster(context.Background(), env, []string{"--roster", "crew"}); code != 0 {
		t.Fatalf("new --roster: %s", errb)
	}
	s := store.Stores{Home: home}
	for _, m := range []string{"lead", "worker"} {
		if _, err := s.Install(filepath.Join(dir, "crew", m), store.ArtifactID{Name: "crew-" + m, Version: "0.1.0", Runtime: "capsule"}, store.ScopeGlobal); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDoctorFormationDir pins DOC-2's output for an admitted roster, one
// with a W-ROS-001 (and the members' own W-RUN-008) and a refused one
// (DOC-1..3).
func TestDoctorFormationDir(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	installCrew(t, dir, home)
	crew := filepath.Join(dir, "crew")
	env, out, errb := frmEnv(map[string]string{"MURMUR_HOME": home})
	if code, _, _ := doctorFormationDir(context.Background(), env, env.Stdout, crew); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	want := "No murmur.yaml in " + crew + ": checking its roster.yaml. Run mur doctor in a member's source directory to check that member's artifacts.\n\n" +
		"Roster\n  file: " + filepath.Join(crew, "roster.yaml") + "\n" +
		"  lead     crew-lead@0.1.0     entry   refuses peers   authenticated door\n" +
		"  worker   crew-worker@0.1.0           serves peers    authenticated door\n" +
		"  reachability: lead → worker\n\nAll checks passed.\n"
	if out.String() != want || errb.Len() != 0 {
		t.Errorf("doctor =\n%s\nwant\n%s\nstderr %q", out, want, errb)
	}

	// Two more members calling worker, whose queue holds two: W-ROS-001.
	rosterPath := filepath.Join(crew, "roster.yaml")
	text, _ := os.ReadFile(rosterPath)
	more := strings.Replace(string(text), "reachability:", "  - {name: a, capsule: crew-worker, version: \"0.1.0\"}\n  - {name: b, capsule: crew-worker, version: \"0.1.0\"}\nreachability:\n  - {from: a, to: [worker]}\n  - {from: b, to: [worker]}", 1)
	os.WriteFile(rosterPath, []byte(more), 0o644)
	env, out, errb = frmEnv(map[string]string{"MURMUR_HOME": home})
	if code, _, _ := doctorFormationDir(context.Background(), env, env.Stdout, crew); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	// a and b run crew-worker, which declares no localhost egress: each is
	// a caller that could reach no door (W-RUN-008).
	noEgress := func(m string) string {
		return "  warning[W-RUN-008]: roster.yaml lets '" + m + "' call 'worker', but its capabilities.network.allow reaches no loopback http door at an unpinned port, so every call-member call will be refused; declare \"localhost\"\n"
	}
	w := "  warning[W-ROS-001]: roster.yaml lets 3 members call 'worker' (lead, a, b), but it holds 2 task(s) at once — task_acceptance: queue, queue_depth: 1 — so a call that arrives while it is full is rejected; lifecycle.queue_depth: 2 would hold them all\n" +
		noEgress("a") + noEgress("b") + "\n" +
		"The roster has no errors and 3 warnings.\n\nFix: set lifecycle.task_acceptance: queue and lifecycle.queue_depth: 2 in the murmur.yaml of member 'worker'\n" +
		"Fix: add \"localhost\" to capabilities.network.allow\nFix: add \"localhost\" to capabilities.network.allow\n"
	if !strings.HasSuffix(out.String(), "  reachability: lead → worker, a → worker, b → worker\n"+w) {
		t.Errorf("doctor =\n%s\nwant the end\n%s", out, w)
	}

	// A refused roster: ✗ in the block, the code on stderr, exit 1.
	os.WriteFile(rosterPath, []byte(strings.Replace(string(text), "to: [worker]", "to: [worker]\n  - from: worker\n    to: [lead]", 1)), 0o644)
	env, out, errb = frmEnv(map[string]string{"MURMUR_HOME": home})
	if code, _, _ := doctorFormationDir(context.Background(), env, env.Stdout, crew); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	msg := "roster.yaml: the reachability rule from 'worker' lists the entry member 'lead' in `to`, but the entry member is never called: it runs the formation's own task from launch until the formation ends"
	hint := "remove 'lead' from that rule; to have 'worker' report to 'lead', write the rule from 'lead' to 'worker'"
	if !strings.HasSuffix(out.String(), "Roster\n  file: "+rosterPath+"\n  ✗  error[E-ROS-008]: "+msg+"\n\nThe roster has 1 error.\n\nFix: "+hint+"\n") {
		t.Errorf("doctor =\n%s", out)
	}
	if errb.String() != "" { // said once, in the block
		t.Errorf("stderr = %q", errb)
	}
}

// TestRunRosterFlags covers LAUNCH-6, LAUNCH-9 and LAUNCH-1 step 1.
func TestRunRosterFlags(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	f, err := parseRosterFlags([]string{"--roster", "--task", "do it", "--json", "-v", "--no-env-file", "--deadline", "90m"}, now)
	if err != nil || f.roster != "" || *f.task != "do it" || !f.json || !f.verbose || !f.noEnvFile || !f.deadline.Equal(now.Add(90*time.Minute)) {
		t.Errorf("parse = %+v, %v", f, err)
	}
	if f, err = parseRosterFlags([]string{"--json", "--roster", "crew"}, now); err != nil || f.roster != "crew" {
		t.Errorf("--roster crew = %+v, %v", f, err)
	}
	if f, err = parseRosterFlags([]string{"--roster=crew/roster.yaml", "--deadline", "2030-01-02T04:00:00Z"}, now); err != nil || f.roster != "crew/roster.yaml" || f.deadline.Sub(now) != 56*time.Minute-5*time.Second {
		t.Errorf("--roster= = %+v, %v", f, err)
	}
	if f, _ = parseRosterFlags([]string{"--roster", "--deadline", "99999d"}, now); !f.deadline.Equal(now.Add(maxDeadline)) {
		t.Errorf("deadline not clamped at ten years: %v", f.deadline)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--roster", "--manifest", "x"}, "--manifest cannot be used with --roster"},
		{[]string{"--roster", "--resume-mode", "full"}, "--resume-mode cannot be used with --roster"},
		{[]string{"--roster", "--resume"}, "flag needs an argument: --resume"},
		{[]string{"--roster", "--port", "3"}, "--port cannot be used with --roster"},
		{[]string{"--roster", "--bogus"}, "unknown flag --bogus"},
		{[]string{"--roster", "a", "b"}, "unexpected argument 'b'"},
		{[]string{"--roster", "--task"}, "flag needs an argument: --task"},
		{[]string{"--roster", "--deadline", "2001-01-01T00:00:00Z"}, "--deadline '2001-01-01T00:00:00Z' is in the past"},
		{[]string{"--roster", "--deadline", "soon"}, "--deadline 'soon' is neither an RFC 3339 time nor a duration"},
	} {
		env, _, errb := frmEnv(nil)
		if code := runRoster(context.Background(), env, tt.args); code != 2 || errb.String() != "error: "+tt.want+"\nrun 'mur run --help' for usage\n" {
			t.Errorf("mur run %v = %d, %q; want 2, %q", tt.args, code, errb, tt.want)
		}
	}
	env, _, errb := frmEnv(map[string]string{"MURMUR_FORMATION_ID": "frm_0123"})
	if code := runRoster(context.Background(), env, []string{"--roster"}); code != 1 || errb.String() != "error[E-RUN-046]: MURMUR_FORMATION_ID is set, so this process is already a member of a formation, and a formation member cannot launch a formation\n  hint: launch the formation with mur run --roster, or unset these variables to run this capsule on its own\n" {
		t.Errorf("launcher inside a formation = %d, %q", code, errb)
	}
}
