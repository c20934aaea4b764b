package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
)

// bigRoster is a roster of n members: lead (crew-lead) the entry, the rest
// crew-worker peers, no reachability. With refused, members[1] is named lead
// too, so that a build without the bounds refuses it E-ROS-003 rather than
// launch hundreds of members.
func bigRoster(n int, refused bool) string {
	var b strings.Builder
	b.WriteString("roster_version: 1\nmembers:\n  - {name: lead, capsule: crew-lead, version: \"0.1.0\", entry: true}\n")
	for i := 1; i < n; i++ {
		name := fmt.Sprintf("w%d", i)
		if refused && i == 1 {
			name = "lead"
		}
		fmt.Fprintf(&b, "  - {name: %s, capsule: crew-worker, version: \"0.1.0\"}\n", name)
	}
	return b.String()
}

// TestRosterAndManifestBounds: a roster over 1 MiB (64,000 members) and a
// manifest over 1 MiB are refused before they are parsed, a roster of 257
// members is refused, and one of 256 is admitted.
func TestRosterAndManifestBounds(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrewGlobal(t, w)
	huge := bigRoster(64000, true)
	if len(huge) <= 1<<20 {
		t.Fatalf("the 64,000-member roster is %d bytes; want over 1 MiB", len(huge))
	}
	tooLarge := "error[E-ROS-001]: roster.yaml: " + filepath.Join(w.dir, "big", "roster.yaml") +
		": the file is over 1048576 bytes (1 MiB), the most a roster may hold; it was not parsed\n  hint: keep roster.yaml under 1 MiB\n"
	for _, c := range []struct {
		name, roster string
		args         []string
		code         int
		stderr       string
		stdout       string // a line the report holds; doctor says a refused roster once, on stdout
	}{
		{"64,000 members", huge, []string{"run", "--roster", "--task", "x"}, 1, tooLarge, ""},
		{"64,000 members, doctor", huge, []string{"doctor"}, 1, "", "  ✗  " + strings.SplitAfter(tooLarge, "\n")[0]},
		{"257 members", bigRoster(257, true), []string{"run", "--roster", "--task", "x"}, 1,
			"error[E-ROS-001]: roster.yaml:3:3: members: lists 257 members; a roster holds at most 256\n  hint: list at most 256 members\n", ""},
		{"256 members, doctor", bigRoster(256, false), []string{"doctor"}, 0, "", ""},
	} {
		writeRoster(t, w, "big", c.roster)
		out, errOut, code := w.run(t, "big", c.args...)
		if code != c.code || errOut != c.stderr || !strings.Contains(out, c.stdout) {
			t.Errorf("%s: mur %s = %d\nstderr %q\nwant   %d %q, stdout holding %q\nstdout tail %q", c.name, strings.Join(c.args, " "), code, errOut, c.code, c.stderr, c.stdout, tail(out))
		}
		// The scaffold's lead calls call-member and this roster gives it no
		// edge: the one warning (W-ROS-004) every member admitted leaves.
		if c.code == 0 && (!strings.Contains(out, "  w255   crew-worker@0.1.0") || !strings.Contains(out, "warning[W-ROS-004]: member 'lead'") || !strings.HasSuffix(out, "1 warning.\n\nFix: add a reachability rule from: lead, to: [<member>]\n")) {
			t.Errorf("%s: doctor did not admit all 256 members:\n%s", c.name, tail(out))
		}
	}

	big := filepath.Join(w.dir, "bigcap")
	os.MkdirAll(big, 0o755)
	// Padded past 1 MiB by a comment; its script does not exist, so a build
	// that parsed it would refuse E-RUN-009 rather than run it.
	body := "name: bigcap\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: s.yaml}}\n# " + strings.Repeat("x", 1<<20) + "\n"
	if err := os.WriteFile(filepath.Join(big, "murmur.yaml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "error[E-MAN-004]: " + filepath.Join(big, "murmur.yaml") + ": the file is over 1048576 bytes (1 MiB), the most a manifest may hold; it was not parsed\n  hint: keep the manifest under 1 MiB\n"
	for _, args := range [][]string{{"run", "--manifest", filepath.Join(big, "murmur.yaml"), "--task", "x"}, {"install", "-g", big}} {
		if _, errOut, code := w.run(t, ".", args...); code != 1 || errOut != want {
			t.Errorf("mur %s = %d %q\nwant 1 %q", args[0], code, errOut, want)
		}
	}
}

func tail(s string) string {
	if len(s) > 400 {
		return "…" + s[len(s)-400:]
	}
	return s
}

// fifo makes a FIFO at path and holds it open for reading and writing, so a
// reader finds a writer that never writes nor closes: its read waits.
func fifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
}

// exitAfterSignal sends sig to cmd once it holds path open (it is blocked
// reading it), and returns its exit code; -1 when it had not ended 30 s after
// the signal (it ignored it).
func exitAfterSignal(t *testing.T, cmd *exec.Cmd, path string, sig syscall.Signal) int {
	t.Helper()
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1) // the one Wait result
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	if !testmur.WaitOpen(cmd.Process.Pid, path) {
		t.Fatalf("mur never opened %s", path)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		return 0
	case <-time.After(30 * time.Second):
		return -1
	}
}

// TestSignalDuringAdmission: SIGTERM or SIGINT while the launcher reads and
// admits the roster (here a roster.yaml that is a FIFO whose writer never
// finishes) ends it at once with 143 or 130, before any member starts (issue
// 9 item 6; formations.md FCLI-4). Likewise a single `mur run` still reading
// its manifest exits 143 or 130, having made nothing.
func TestSignalDuringAdmission(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	os.MkdirAll(filepath.Join(w.dir, "slow"), 0o755)
	roster := filepath.Join(w.dir, "slow", "roster.yaml")
	fifo(t, roster)
	manifest := filepath.Join(w.dir, "slow", "murmur.yaml")
	fifo(t, manifest)
	for _, c := range []struct {
		sig    syscall.Signal
		code   int
		args   []string
		path   string
		stderr string
	}{
		{syscall.SIGTERM, 143, []string{"run", "--roster", "slow", "--task", "x"}, roster,
			"[mur run] the formation launch was interrupted by SIGTERM before any member started\n"},
		{syscall.SIGINT, 130, []string{"run", "--roster", "slow", "--task", "x"}, roster,
			"[mur run] the formation launch was interrupted by SIGINT before any member started\n"},
		{syscall.SIGTERM, 143, []string{"run", "--manifest", manifest, "--task", "x"}, manifest, ""},
		{syscall.SIGINT, 130, []string{"run", "--manifest", manifest, "--task", "x"}, manifest, ""},
	} {
		cmd := exec.Command(mur, c.args...)
		cmd.Dir = w.dir
		cmd.Env = w.env()
		var out, errb testmur.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if code := exitAfterSignal(t, cmd, c.path, c.sig); code != c.code || errb.String() != c.stderr || out.String() != "" {
			t.Errorf("mur %s, %s while it reads %s: exit %d (-1: still running 30 s later)\nstdout %q\nstderr %q\nwant %d %q",
				strings.Join(c.args, " "), c.sig, filepath.Base(c.path), code, out.String(), errb.String(), c.code, c.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(w.home, "records")); !os.IsNotExist(err) {
		t.Errorf("records: %v; an interrupted launch makes nothing", err)
	}
	if _, err := os.Stat(filepath.Join(w.home, "formations")); !os.IsNotExist(err) {
		t.Errorf("formations: %v; an interrupted launch makes nothing", err)
	}
}

// TestMaxConnectionsReachesEveryMember: mur run --roster --max-connections N
// hands N to every member's mur run (docs/door.md).
func TestMaxConnectionsReachesEveryMember(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrew(t, w)
	l := w.start(t, "crew", "run", "--roster", "--json", "--max-connections", "7")
	fl := decode[formationLine](t, l.line(t))
	entry := decode[readiness](t, l.line(t))
	for _, pid := range []int{fl.Peers[0].PID, entry.PID} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "\x00--max-connections\x007\x00") {
			t.Errorf("member pid %d runs %q; want --max-connections 7", pid, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	l.cmd.Process.Signal(syscall.SIGTERM)
	if code := l.wait(); code != 143 {
		t.Errorf("launcher exit %d, want 143", code)
	}
	if left := goneWithin(30*time.Second, fl.Peers[0].PID, entry.PID); len(left) > 0 {
		t.Errorf("still running: %v", left)
	}
}
