package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
)

// writeRoster writes roster.yaml into the world's directory dir.
func writeRoster(t *testing.T, w *world, dir, text string) {
	t.Helper()
	os.MkdirAll(filepath.Join(w.dir, dir), 0o755)
	if err := os.WriteFile(filepath.Join(w.dir, dir, "roster.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const fourRoster = `roster_version: 1
members:
  - {name: lead, capsule: crew-lead, version: "0.1.0", entry: true}
  - {name: worker, capsule: crew-worker, version: "0.1.0"}
  - {name: coder, capsule: e2e-coder, version: "0.1.0"}
  - {name: tester, capsule: e2e-tester, version: "0.1.0"}
reachability:
  - {from: lead, to: [worker, coder]}
  - {from: coder, to: [tester]}
`

// startFour launches a four-member formation in door mode and returns the
// launch, its formation line and the entry's readiness line.
func startFour(t *testing.T, w *world) (*launch, formationLine, readiness) {
	t.Helper()
	scaffoldCrewGlobal(t, w)
	installPeer(t, w, "e2e-coder")
	installPeer(t, w, "e2e-tester")
	writeRoster(t, w, "four", fourRoster)
	l := w.start(t, "four", "run", "--roster", "--json")
	return l, decode[formationLine](t, l.line(t)), decode[readiness](t, l.line(t))
}

// TestLaunchReachesEveryDoor: every peer's door answers at the URL the
// formation line reports, as the session it names; a SIGTERM to the launcher
// ends every member and exits 143 (FCLI-1, READY-2, LIFE-2, FCLI-4).
func TestLaunchReachesEveryDoor(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	l, fl, entry := startFour(t, w)
	if len(fl.Peers) != 3 || fl.Peers[0].Name != "worker" || fl.Peers[1].Name != "coder" || fl.Peers[2].Name != "tester" {
		t.Fatalf("formation line = %+v", fl)
	}
	urls := []string{entry.URL}
	pids := []int{entry.PID}
	for _, p := range fl.Peers {
		urls, pids = append(urls, p.URL), append(pids, p.PID)
		if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+$`).MatchString(p.URL) || !a2a.ValidID(p.SessionID, a2a.PrefixSession) {
			t.Errorf("peer %s: url %q, session %q", p.Name, p.URL, p.SessionID)
		}
		if fi, err := os.Stat(p.Workdir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v (want a 0700 directory, DIR-1)", p.Workdir, err)
		}
	}
	for _, u := range urls {
		resp, err := http.Get(u + a2a.WellKnownCardPath)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), `"url":"`+u+`"`) {
			t.Errorf("card at %s = %d %s", u, resp.StatusCode, b)
		}
	}
	if err := l.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := l.wait(); code != 143 {
		t.Errorf("launcher exit = %d, want 143\n%s", code, l.stderr)
	}
	if left := goneWithin(0, pids...); len(left) > 0 {
		t.Errorf("still running after the launcher exited: %v", left)
	}
	for _, p := range fl.Peers {
		endsWithFormationEnded(t, filepath.Join(w.home, "records", strings.TrimPrefix(p.Workdir, "/"), p.SessionID, "trace.jsonl"))
	}
	endsWithFormationEnded(t, filepath.Join(entry.RecordsDir, "trace.jsonl"))
}

// TestStopFormationEndToEnd: mur stop <frm_id> SIGTERMs the launcher, every
// member ends with formation_ended, and the output names each (FCLI-6).
func TestStopFormationEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	l, fl, entry := startFour(t, w)
	out, errOut, code := w.run(t, ".", "stop", fl.FormationID)
	if code != 0 {
		t.Fatalf("mur stop = %d\n%s%s", code, out, errOut)
	}
	want := "stopped:  " + fl.FormationID + "\nlauncher: pid " + strconv.Itoa(l.cmd.Process.Pid) + ", SIGTERM\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("mur stop stdout =\n%s\nwant the start\n%s", out, want)
	}
	for _, ses := range []string{entry.SessionID, fl.Peers[0].SessionID, fl.Peers[1].SessionID, fl.Peers[2].SessionID} {
		if !regexp.MustCompile(`(?m)^member:   ` + ses + `  \S+@0\.1\.0  formation_ended$`).MatchString(out) {
			t.Errorf("mur stop names no formation_ended line for %s:\n%s", ses, out)
		}
	}
	if code := l.wait(); code != 143 {
		t.Errorf("launcher exit = %d, want 143", code)
	}
}

// TestPeerFailsReadiness: a peer that refuses to start stops the whole
// launch with E-RUN-045 and its tail; nothing is left running and the entry
// never starts (READY-4, READY-5).
func TestPeerFailsReadiness(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrewGlobal(t, w)
	dir := filepath.Join(w.dir, "src", "e2e-keyless")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte("name: e2e-keyless\nversion: \"0.1.0\"\ninference:\n  driver:\n    kind: openai\n    model: m\n    api_key: ${E2E_UNSET_KEY}\nexports:\n  peer_tasks:\n    accept: true\nnetwork:\n  authentication:\n    scheme: bearer\n"), 0o644)
	if _, errOut, code := w.run(t, ".", "install", "-g", dir); code != 0 {
		t.Fatal(errOut)
	}
	writeRoster(t, w, "bad", "roster_version: 1\nmembers:\n  - {name: lead, capsule: crew-lead, version: \"0.1.0\", entry: true}\n  - {name: worker, capsule: crew-worker, version: \"0.1.0\"}\n  - {name: broken, capsule: e2e-keyless, version: \"0.1.0\"}\nreachability:\n  - {from: lead, to: [worker, broken]}\n")
	out, errOut, code := w.run(t, "bad", "run", "--roster", "--task", "x", "--json")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, errOut)
	}
	i := strings.Index(errOut, "error[E-RUN-045]: the formation could not be launched\n  'broken' (e2e-keyless@0.1.0): its process exited with status 1 before reporting; its last stderr lines were:\n      error[E-MAN-003]: ")
	if i < 0 {
		t.Fatalf("stderr =\n%s", errOut)
	}
	m := regexp.MustCompile(`\n  stopped: worker \(pid (\d+)\), broken \(pid (\d+)\)\n  hint: the formation was not launched, and nothing it started is still running; fix the member named above and launch again\n$`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("stderr lacks the stopped line:\n%s", errOut)
	}
	for _, s := range m[1:] {
		pid, _ := strconv.Atoi(s)
		if !testmur.Gone(pid) {
			t.Errorf("pid %d survived the refused launch", pid)
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(w.home, "records", strings.TrimPrefix(filepath.Join(w.dir, "bad"), "/"), "ses_*")); len(entries) != 0 {
		t.Errorf("the entry member started: %v", entries)
	}
}

// TestAdmissionRefusalsEndToEnd: the stores' admission codes through the
// real binary, with nothing created (ADM-1 checks 6a, 6b, 7).
func TestAdmissionRefusalsEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrewGlobal(t, w)
	b, _ := os.ReadFile(filepath.Join(w.dir, "crew", "roster.yaml"))
	crew := string(b)
	withOther := strings.Replace(strings.Replace(crew, "to: [worker]", "to: [worker, other]", 1),
		"reachability:", "  - {name: other, capsule: crew-lead, version: \"0.1.0\"}\nreachability:", 1)
	lock := "lock_version: 2\nartifacts:\n  - name: crew-worker\n    resolved_version: 0.1.0\n    runtime: capsule\n    sha256: " + strings.Repeat("0", 64) + "\n    origin: operator\n"
	tests := []struct {
		name, roster, lock, want string
	}{
		{"6a", strings.Replace(crew, "capsule: crew-worker\n    version: \"0.1.0\"", "capsule: crew-worker\n    version: \"0.2.0\"", 1), "",
			"error[E-ROS-007]: roster.yaml: member 'worker' (crew-worker@0.2.0) is installed in neither store; installed versions of crew-worker: 0.1.0 (global store)\n  hint: install crew-worker@0.2.0 with mur install <the directory holding its murmur.yaml>, or set members[1].version to an installed one\n"},
		{"6b", crew, lock, "error[E-REG-005]: roster.yaml: member 'worker' resolves crew-worker@0.1.0 (sha256:"},
		{"7", withOther, "",
			"error[E-ROS-005]: roster.yaml: the reachability rule from 'lead' calls 'other', but 'other' (crew-lead@0.1.0) does not declare exports.peer_tasks.accept: true\n  hint: declare exports.peer_tasks.accept: true in the murmur.yaml of crew-lead (member 'other') and install it again, or drop 'other' from every to\n"},
	}
	for _, tt := range tests {
		dir := "adm-" + tt.name
		writeRoster(t, w, dir, tt.roster)
		if tt.lock != "" {
			os.WriteFile(filepath.Join(w.dir, dir, "murmur.lock"), []byte(tt.lock), 0o644)
		}
		out, errOut, code := w.run(t, dir, "run", "--roster", "--task", "x")
		if code != 1 || out != "" || !strings.HasPrefix(errOut, tt.want) {
			t.Errorf("check %s: exit %d, stdout %q, stderr\n%s\nwant\n%s", tt.name, code, out, errOut, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(w.home, "formations")); !os.IsNotExist(err) {
		t.Errorf("a refused roster made %s/formations (%v)", w.home, err)
	}
}
