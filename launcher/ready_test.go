package launcher

import (
	"bytes"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
)

const hint045 = "  hint: the formation was not launched, and nothing it started is still running; fix the member named above and launch again\n"

func rosterWith(failing string) string {
	return fmt.Sprintf("roster_version: 1\nmembers:\n  - {name: lead, capsule: lead, version: '1', entry: true}\n  - {name: aa, capsule: good, version: '1'}\n  - {name: bb, capsule: %s, version: '1'}\nreachability:\n  - {from: lead, to: [aa, bb]}\n", failing)
}

// TestReadinessFailures pins E-RUN-045 with each READY-4 reason, and proves
// that a refused launch leaves nothing running and never starts the entry
// (READY-5).
func TestReadinessFailures(t *testing.T) {
	t.Parallel()
	tests := []struct{ capsule, reason string }{
		{"exit-early", "its process exited with status 3 before reporting; its last stderr lines were:\n      starting up\n      cannot go on"},
		{"garbage", "its first line is not a readiness line: invalid character 'h' looking for beginning of value"},
		{"no-door", "it reported no door"},
		{"wrong-frm", "it reported formation frm_ID instead of frm_ID"},
		{"exit-after", "its process reported and then exited with status 4 before its door answered; its last stderr lines were:\n      up as ses_ID\n      leaving early"},
		{"wrong-session", "its door at http://127.0.0.1:PORT did not answer as session ses_ID within 700ms; the last probe said: the door answered as session 'ses_ID'"},
		{"silent", "it did not report within 700ms"},
	}
	for _, tt := range tests {
		t.Run(tt.capsule, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, rosterWith(tt.capsule), nil)
			h.readyTimeout = 700 * time.Millisecond
			task := "exit:0"
			h.cfg.Task = &task
			if code := h.run(t); code != 1 {
				t.Fatalf("exit code = %d, want 1\n%s", code, h.stderr.String())
			}
			want := "error[E-RUN-045]: the formation could not be launched\n  'bb' (" + tt.capsule + "@1): " + tt.reason +
				"\n  stopped: aa (pid N), bb (pid N)\n" + hint045
			got := h.stderr.String()
			i := strings.Index(got, "error[E-RUN-045]")
			if i < 0 || normalize(got[i:]) != want {
				t.Errorf("stderr =\n%s\nwant the tail\n%s", normalize(got), want)
			}
			if h.stdout.String() != "" {
				t.Errorf("stdout = %q; no formation line on refusal", h.stdout.String())
			}
			if strings.Contains(got, "[lookup]") || strings.Contains(got, `"name":"lead"`) {
				t.Error("the entry member started")
			}
			assertGone(t, got[i:])
		})
	}
}

// TestInterruptedStartup: a signal before every member is ready stops what
// started, prints READY-5's lines and exits 128 + signal.
func TestInterruptedStartup(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "roster_version: 1\nmembers:\n  - {name: lead, capsule: lead, version: '1', entry: true}\n  - {name: s, capsule: silent, version: '1'}\n", nil)
	// The signal arrives once the peer runs (it never becomes ready).
	root := []byte("\x00--store-root\x00" + h.project + "\x00")
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		testmur.Within(time.Minute, func() bool {
			return len(testmur.Procs(func(_ []string, cmdline []byte) bool { return bytes.Contains(cmdline, root) })) > 0
		})
		h.sigs <- syscall.SIGINT
	}()
	code := h.run(t)
	<-sent
	if code != 130 {
		t.Fatalf("exit code = %d, want 130", code)
	}
	want := "[mur run] the formation launch was interrupted by SIGINT before every member was ready\n[mur run] stopped: s (pid N)\n"
	if got := normalize(h.stderr.String()); got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	assertGone(t, h.stderr.String())
}

// TestSignalBeforeFirstStart: a signal that comes after admission but
// before the first member starts ends the launch with 128 + signal, having
// started nothing.
func TestSignalBeforeFirstStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "roster_version: 1\nmembers:\n  - {name: lead, capsule: lead, version: '1', entry: true}\n  - {name: s, capsule: silent, version: '1'}\n", nil)
	// Admitted and minted: the launcher reads its own start time next.
	h.cfg.ProcessStart = func(int) string { h.sigs <- syscall.SIGINT; return "1" }
	if code := h.run(t); code != 130 {
		t.Fatalf("exit code = %d, want 130", code)
	}
	if got, want := h.stderr.String(), "[mur run] the formation launch was interrupted by SIGINT before any member started\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

// TestInterruptedAdmission: a signal while the roster is admitted ends the
// launch at once with 128 + signal, before any member starts.
func TestInterruptedAdmission(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "roster_version: 1\nmembers:\n  - {name: lead, capsule: lead, version: '1', entry: true}\n  - {name: s, capsule: silent, version: '1'}\n", nil)
	h.sigs <- syscall.SIGTERM
	if code := h.run(t); code != 143 {
		t.Fatalf("exit code = %d, want 143", code)
	}
	if got, want := h.stderr.String(), "[mur run] the formation launch was interrupted by SIGTERM before any member started\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	if h.stdout.String() != "" {
		t.Errorf("stdout = %q, want nothing", h.stdout.String())
	}
}

// TestStubbornPeer: a member that ignores its closed lifeline has its whole
// process group SIGKILLed after the grace and is reaped (LIFE-4, LIFE-5).
func TestStubbornPeer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, "roster_version: 1\nmembers:\n  - {name: lead, capsule: lead, version: '1', entry: true}\n  - {name: s, capsule: stubborn, version: '1'}\n", nil)
	h.grace = 300 * time.Millisecond
	task := "exit:0"
	h.cfg.Task = &task
	if code := h.run(t); code != 0 {
		t.Fatalf("exit code = %d\n%s", code, h.stderr.String())
	}
	if !strings.Contains(h.stderr.String(), "[grandchild]") {
		t.Fatalf("the stubborn peer started no grandchild:\n%s", h.stderr.String())
	}
	assertGone(t, h.stdout.String(), h.stderr.String())
}

func TestMakePeerDirNeverReuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fl := makePeerDir(dir)
	want := "its process could not be started: its directory " + dir + " could not be made: file exists"
	if fl == nil || fl.reason != want {
		t.Errorf("makePeerDir(existing) = %+v, want %q", fl, want)
	}
}
