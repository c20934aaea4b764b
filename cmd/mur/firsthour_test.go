package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// crewEnv scaffolds the formation crew (mur new --roster crew) in a fresh
// world, lets edit change its files before the install, and installs both
// members into its project store.
func crewEnv(t *testing.T, edit func(read func(string) string, write func(string, string))) *artEnv {
	t.Helper()
	e := newArtEnv(t)
	if _, errOut, code := e.mur(t, "", "new", "--roster", "crew"); code != 0 {
		t.Fatalf("mur new --roster crew: %s", errOut)
	}
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(e.root, "crew", rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	write := func(rel, body string) { e.write(t, map[string]string{"crew/" + rel: body}) }
	if edit != nil {
		edit(read, write)
	}
	for _, m := range []string{"lead", "worker"} {
		if _, errOut, code := e.mur(t, "crew", "install", m); code != 0 {
			t.Fatalf("mur install %s: %s", m, errOut)
		}
	}
	return e
}

// lastLine is s's last non-empty line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestBrokenSetupsWarnAndStrict: the three setups that used to end
// "status:  ok" with a broken answer — a misspelt capabilities:, a lead that
// calls with reachability: [], a caller without network.allow — are each
// warned by mur doctor; mur run's last line says the answer came despite
// the warnings; mur run --strict, roster.yaml's strict: true and mur doctor
// --strict refuse them with exit 1, starting nothing.
func TestBrokenSetupsWarnAndStrict(t *testing.T) {
	t.Parallel()
	noAllow := regexp.MustCompile(`(?m)^capabilities:.*\n  network:.*\n    allow:.*\n`)
	cases := []struct {
		name  string
		edit  func(read func(string) string, write func(string, string))
		codes []string
	}{
		{"typo capabilites", func(read func(string) string, write func(string, string)) {
			write("lead/murmur.yaml", strings.Replace(read("lead/murmur.yaml"), "\ncapabilities:", "\ncapabilites:", 1))
		}, []string{"W-SEC-019", "W-RUN-008"}},
		{"reachability empty", func(read func(string) string, write func(string, string)) {
			r := read("roster.yaml")
			write("roster.yaml", r[:strings.Index(r, "reachability:")]+"reachability: []\n")
		}, []string{"W-ROS-004"}},
		{"caller without network.allow", func(read func(string) string, write func(string, string)) {
			write("lead/murmur.yaml", noAllow.ReplaceAllString(read("lead/murmur.yaml"), ""))
		}, []string{"W-RUN-008"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := crewEnv(t, c.edit)
			out, errOut, code := e.mur(t, "crew", "doctor")
			if code != 0 {
				t.Errorf("doctor = %d, %s%s", code, out, errOut)
			}
			for _, w := range c.codes {
				if !strings.Contains(out, "warning["+w+"]") {
					t.Errorf("doctor does not warn %s:\n%s", w, out)
				}
			}
			if strings.Contains(out, "All checks passed.") {
				t.Errorf("doctor passed a broken setup:\n%s", out)
			}
			out, _, code = e.mur(t, "crew", "doctor", "--strict")
			if code != 1 || !strings.HasSuffix(out, "\nStrict: "+doctorCount(len(c.codes), "warning")+" count as errors, as mur run --strict would refuse this launch.\n") {
				t.Errorf("doctor --strict = %d:\n%s", code, out)
			}

			out, errOut, code = e.mur(t, "crew", "run", "--roster", ".", "--task", "hello")
			want := "[mur run] warning[W-RUN-010]: the formation's answer came despite " + doctorCount(len(c.codes), "warning") +
				" printed at launch (" + strings.Join(c.codes, ", ") + "); mur doctor explains each, and --strict refuses such a run"
			if code != 0 || !strings.HasSuffix(out, "status:  ok\n") || lastLine(errOut) != want {
				t.Errorf("run = %d\nstdout %s\nstderr %s\nwant the last stderr line %q", code, out, errOut, want)
			}

			out, errOut, code = e.mur(t, "crew", "run", "--roster", ".", "--task", "hello", "--strict")
			wantErr := "error[E-RUN-048]: --strict refuses a launch with warnings, and this one has " + doctorCount(len(c.codes), "warning") + " (above)\n  hint: fix each warning, or run without --strict\n"
			if code != 1 || out != "" || !strings.HasSuffix(errOut, wantErr) || strings.Contains(errOut, "formation: ") {
				t.Errorf("run --strict = %d\nstdout %q\nstderr %s", code, out, errOut)
			}
			e.write(t, map[string]string{"crew/roster.yaml": "strict: true\n" + mustRead(t, filepath.Join(e.root, "crew", "roster.yaml"))})
			_, errOut, code = e.mur(t, "crew", "run", "--roster", ".", "--task", "hello")
			if code != 1 || !strings.Contains(errOut, "error[E-RUN-048]: roster.yaml's strict: true refuses a launch with warnings") {
				t.Errorf("run under strict: true = %d\n%s", code, errOut)
			}
		})
	}
}

// TestEditedMemberReported: a member edited after its install is reported
// by mur doctor and mur run with the commands that install the edit; the run
// uses the installed copy; mur run --reinstall installs it first and runs it.
func TestEditedMemberReported(t *testing.T) {
	t.Parallel()
	e := crewEnv(t, nil)
	worker := filepath.Join(e.root, "crew", "worker")
	e.write(t, map[string]string{"crew/worker/script.yaml": strings.Replace(mustRead(t, filepath.Join(worker, "script.yaml")), "worker did:", "worker, edited, did:", 1)})
	warning := regexp.MustCompile(`warning\[W-REG-001\]: member 'worker': crew-worker@0\.1\.0 in the project store was installed from ` + regexp.QuoteMeta(worker) +
		`, which has changed since \(sha256:[0-9a-f]{12}… now, sha256:[0-9a-f]{12}… installed\), so a run uses the copy installed before the change; ` +
		regexp.QuoteMeta("mur install --force "+worker+" installs the change (or mur run --roster "+filepath.Join(e.root, "crew")+" --reinstall, which does so before it launches)"))

	out, _, code := e.mur(t, "crew", "doctor")
	if code != 0 || !warning.MatchString(out) || !strings.Contains(out, "Fix: run mur install --force "+worker+", or mur run --roster "+filepath.Join(e.root, "crew")+" --reinstall\n") {
		t.Errorf("doctor = %d:\n%s", code, out)
	}
	out, errOut, code := e.mur(t, "crew", "run", "--roster", ".", "--task", "hello")
	if code != 0 || !strings.HasSuffix(out, "\nworker did: hello\nstatus:  ok\n") || !warning.MatchString(errOut) || !strings.Contains(lastLine(errOut), "(W-REG-001)") {
		t.Errorf("run = %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	out, errOut, code = e.mur(t, "crew", "run", "--roster", ".", "--task", "hello", "--reinstall")
	reinstalled := regexp.MustCompile(`(?m)^\[mur run\] reinstalled crew-worker@0\.1\.0 from ` + regexp.QuoteMeta(worker) + ` into the project store: sha256:[0-9a-f]{64} → sha256:[0-9a-f]{64}$`)
	if code != 0 || !strings.HasSuffix(out, "\nworker, edited, did: hello\nstatus:  ok\n") || !reinstalled.MatchString(errOut) || strings.Contains(errOut, "W-REG-001") {
		t.Errorf("run --reinstall = %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	out, _, code = e.mur(t, "crew", "doctor")
	if code != 0 || !strings.HasSuffix(out, "\nAll checks passed.\n") {
		t.Errorf("doctor after --reinstall = %d:\n%s", code, out)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRunStrictCapsule: one capsule with a warning (a misspelt key) answers
// and says last that the answer came despite it; --strict refuses it.
func TestRunStrictCapsule(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: typo\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: script.yaml}}\nlifecyle: {after_task: exit}\n",
		"script.yaml": "script_version: 1\nrules:\n  - match: {always: true}\n    turns: [{text: done}]\n",
	})
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "x")
	want := "warning[W-RUN-010]: this answer came despite 1 warning printed at launch (W-SEC-019); mur doctor explains each, and --strict refuses such a run"
	if code != 0 || !strings.HasSuffix(stdout, "done\nstatus:  ok\n") || lastLine(stderr) != want {
		t.Errorf("run = %d\nstdout %s\nstderr %s\nwant the last stderr line %q", code, stdout, stderr, want)
	}
	stdout, stderr, code = e.run(t, "--capsule", e.dir, "--task", "x", "--strict")
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "warning[W-SEC-019]: "+e.dir+"/murmur.yaml:4:1: unrecognized key 'lifecyle'") ||
		!strings.HasSuffix(stderr, "error[E-RUN-048]: --strict refuses a launch with warnings, and this one has 1 warning (above)\n  hint: fix each warning, or run without --strict\n") {
		t.Errorf("run --strict = %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
}

// TestDoorModeReadyLine: a formation without --task says, once its entry
// serves, that it is ready, at which door, and how to stop it; mur stop
// with the formation id it names ends it.
func TestDoorModeReadyLine(t *testing.T) {
	t.Parallel()
	e := crewEnv(t, nil)
	cmd := exec.Command(murBin, "run", "--roster", ".")
	cmd.Dir = filepath.Join(e.root, "crew")
	cmd.Env = append(os.Environ(), "MURMUR_HOME="+e.home)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
	})
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		done <- cmd.Wait()
	}()
	ready := regexp.MustCompile(`^ready: formation (frm_[0-9a-f]{32}) takes tasks at (http://127\.0\.0\.1:\d+) \(its entry, lead\), one after another, until mur stop (frm_[0-9a-f]{32}) or Ctrl-C$`)
	var url string
	var seen []string
	for l := range lines {
		seen = append(seen, l)
		if strings.HasPrefix(l, "murmur: url ") {
			url = strings.TrimPrefix(l, "murmur: url ")
		}
		if m := ready.FindStringSubmatch(l); m != nil {
			if m[1] != m[3] || m[2] != url {
				t.Errorf("the ready line %q names another formation or door than %s", l, url)
			}
			if _, errOut, code := e.mur(t, "crew", "stop", m[1]); code != 0 {
				t.Errorf("mur stop %s = %d: %s", m[1], code, errOut)
			}
			break
		}
	}
	for range lines {
	}
	if url == "" || len(seen) < 4 {
		t.Fatalf("no ready line; stdout:\n%s\nstderr:\n%s", strings.Join(seen, "\n"), stderr.String())
	}
	<-done
	done <- nil
}

// TestTraceLookups: mur trace show <frm_id> --json prints the formation's
// member sessions with their summaries, and a session's id suffix finds it
// from a directory other than the one it ran in.
func TestTraceLookups(t *testing.T) {
	t.Parallel()
	e := crewEnv(t, nil)
	_, errOut, code := e.mur(t, "crew", "run", "--roster", ".", "--task", "hello")
	frm := regexp.MustCompile(`(?m)^formation: (frm_[0-9a-f]{32})$`).FindStringSubmatch(errOut)
	if code != 0 || frm == nil {
		t.Fatalf("run = %d: %s", code, errOut)
	}
	out, errOut, code := e.mur(t, "", "trace", "show", frm[1], "--json")
	var doc struct {
		FormationID string `json:"formation_id"`
		Members     []struct {
			Member, Role string
			Summary      struct {
				SessionID string `json:"session_id"`
			}
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.FormationID != frm[1] || len(doc.Members) != 2 ||
		doc.Members[0].Member != "lead" || doc.Members[0].Role != "entry" || doc.Members[1].Member != "worker" || doc.Members[1].Role != "peer" {
		t.Fatalf("trace show %s --json = %d\n%s%s", frm[1], code, out, errOut)
	}
	ses := doc.Members[1].Summary.SessionID
	out, errOut, code = e.mur(t, "", "trace", "show", ses[len(ses)-6:])
	if code != 0 || !strings.Contains(out, "session:    "+ses+"\n") {
		t.Errorf("trace show <suffix> outside the session's workdir = %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = e.mur(t, "", "trace", "show", frm[1], "--follow")
	expect(t, "trace show <frm_id> --follow", out, errOut, code, "", "error: a formation id does not take --follow\nrun 'mur trace show --help' for usage\n", 2)
}

// TestEditedStoreCapsuleReported: an installed capsule run by name whose
// source changed since its install says so, with the command that installs
// the change, and its answer comes despite it.
func TestEditedStoreCapsuleReported(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{
		"src/murmur.yaml": "name: solo\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: script.yaml}}\n",
		"src/script.yaml": "script_version: 1\nrules:\n  - match: {always: true}\n    turns: [{text: old}]\n",
	})
	if _, errOut, code := e.mur(t, "", "install", "-g", "src"); code != 0 {
		t.Fatal(errOut)
	}
	e.write(t, map[string]string{"src/script.yaml": "script_version: 1\nrules:\n  - match: {always: true}\n    turns: [{text: new}]\n"})
	src := filepath.Join(e.root, "src")
	out, errOut, code := e.mur(t, "", "run", "--capsule", "solo", "--capsule-version", "1.0.0", "--task", "x")
	warning := regexp.MustCompile(`(?m)^warning\[W-REG-001\]: solo@1\.0\.0 in the global store was installed from ` + regexp.QuoteMeta(src) +
		`, which has changed since \(sha256:[0-9a-f]{12}… now, sha256:[0-9a-f]{12}… installed\), so a run uses the copy installed before the change; ` + regexp.QuoteMeta("mur install -g --force "+src+" installs the change") + `$`)
	if code != 0 || !strings.HasSuffix(out, "old\nstatus:  ok\n") || !warning.MatchString(errOut) || !strings.Contains(lastLine(errOut), "(W-REG-001)") {
		t.Errorf("run = %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}
