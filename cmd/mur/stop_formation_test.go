package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/murhome"
)

// startFrmProc starts a real process for a record and makes sure it is reaped.
func startFrmProc(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	c, _ := startFrmProcOut(t, name, args...)
	return c
}

// startFrmProcOut is startFrmProc with the process's stdout readable, so a
// test can wait for a line the process prints once it is set up.
func startFrmProcOut(t *testing.T, name string, args ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	c := exec.Command(name, args...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its children die with it in Cleanup
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := testmur.Start(c); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		<-done
	})
	return c, bufio.NewReader(stdout)
}

func frmWriteRecord(t *testing.T, home string, r *murhome.Running) {
	t.Helper()
	if err := murhome.WriteRunning(home, r); err != nil {
		t.Fatal(err)
	}
}

func frmStartOf(t *testing.T, pid int) string {
	t.Helper()
	s, err := murhome.StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStopFormation covers FCLI-6: SIGTERM to the one recorded launcher, the
// member lines, the hand-started member stopped as one session, exit 0 once
// every member is gone.
func TestStopFormation(t *testing.T) {
	home := t.TempDir()
	id := a2a.NewID(a2a.PrefixFormation)
	member := startFrmProc(t, "sleep", "1000")
	// The launcher: on SIGTERM it ends its member, as closing a lifeline would.
	launcher, lout := startFrmProcOut(t, "sh", "-c", fmt.Sprintf("trap 'kill %d $!; exit 0' TERM; echo armed; sleep 1000 & wait", member.Process.Pid))
	if line, err := lout.ReadString('\n'); err != nil || line != "armed\n" { // the trap is set before mur stop signals
		t.Fatalf("launcher stand-in said %q, %v", line, err)
	}
	hand := startFrmProc(t, "sleep", "1000")
	recDir := filepath.Join(t.TempDir(), "rec")
	os.MkdirAll(recDir, 0o700)
	os.WriteFile(filepath.Join(recDir, "trace.jsonl"), []byte(`{"event_type":"session_start"}`+"\n"+`{"event_type":"formation_ended"}`+"\n"+`{"event_type":"session_end","exit_status":"ok"}`+"\n"), 0o600)
	lref := &murhome.Launcher{PID: launcher.Process.Pid, ProcessStart: frmStartOf(t, launcher.Process.Pid)}
	now := time.Now()
	w := &murhome.Running{SessionID: a2a.NewID(a2a.PrefixSession), URL: "http://127.0.0.1:1", PID: member.Process.Pid, ProcessStart: frmStartOf(t, member.Process.Pid),
		Name: "crew-worker", Version: "0.1.0", Workdir: "/w", RecordsDir: recDir, StartedAt: now.Add(-time.Minute),
		FormationID: id, FormationLifeline: true, FormationLauncher: lref}
	h := &murhome.Running{SessionID: a2a.NewID(a2a.PrefixSession), URL: "http://127.0.0.1:1", PID: hand.Process.Pid, ProcessStart: frmStartOf(t, hand.Process.Pid),
		Name: "crew-hand", Version: "0.2.0", Workdir: "/h", RecordsDir: t.TempDir(), StartedAt: now, FormationID: id}
	frmWriteRecord(t, home, w)
	frmWriteRecord(t, home, h)
	env, out, errb := frmEnv(map[string]string{"MURMUR_HOME": home})
	if code := stopFormation(context.Background(), env, id, 10*time.Second, false); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
	want := "stopped:  " + id + "\n" +
		fmt.Sprintf("launcher: pid %d, SIGTERM\n", launcher.Process.Pid) +
		"member:   " + h.SessionID + "  crew-hand@0.2.0  started by hand — stopped as one session below\n" +
		"member:   " + w.SessionID + "  crew-worker@0.1.0  formation_ended\n" +
		"\nstopped: " + h.SessionID + "\ncapsule: crew-hand@0.2.0\nsignal:  SIGTERM\nresidue: unknown — the capsule could not be asked: "
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("stdout =\n%s\nwant the start\n%s", out, want)
	}
	for _, c := range []*exec.Cmd{member, launcher, hand} {
		if err := syscall.Kill(c.Process.Pid, 0); err == nil && murhome.Check(c.Process.Pid, "") != murhome.Gone {
			t.Errorf("pid %d still runs", c.Process.Pid)
		}
	}
}

// TestStopFormationRefusals pins the formation forms of E-RUN-022/024 and the
// launcher: lines of a launcher already gone and of --timeout 0.
func TestStopFormationRefusals(t *testing.T) {
	home := t.TempDir()
	id := a2a.NewID(a2a.PrefixFormation)
	env, _, errb := frmEnv(map[string]string{"MURMUR_HOME": home})
	if code := stopFormation(context.Background(), env, "frm_12", time.Second, false); code != 1 ||
		errb.String() != "error[E-RUN-022]: 'frm_12' is not a formation id: it has 2 hex digits, not 32\n  hint: mur ps lists the formations running here\n" {
		t.Errorf("bad id = %d, %q", code, errb)
	}
	env, _, errb = frmEnv(map[string]string{"MURMUR_HOME": home})
	if code := stopFormation(context.Background(), env, id, time.Second, false); code != 1 ||
		errb.String() != "error[E-RUN-022]: no member of formation "+id+" is running on this machine\n  hint: mur ps lists the formations running here\n" {
		t.Errorf("no member = %d, %q", code, errb)
	}
	gone := startFrmProc(t, "true")
	gone.Process.Wait()
	frmWriteRecord(t, home, &murhome.Running{SessionID: a2a.NewID(a2a.PrefixSession), PID: gone.Process.Pid, ProcessStart: "1", Name: "x", Version: "1",
		RecordsDir: t.TempDir(), StartedAt: time.Now(), FormationID: id})
	env, _, errb = frmEnv(map[string]string{"MURMUR_HOME": home})
	if code := stopFormation(context.Background(), env, id, time.Second, false); code != 1 ||
		errb.String() != "error[E-RUN-022]: formation "+id+" is not running: 1 member record(s) named processes that are gone, and were removed\n  hint: mur ps lists the formations running here\n" {
		t.Errorf("stale = %d, %q", code, errb)
	}
	if recs, _ := murhome.ListRunning(home); len(recs) != 0 {
		t.Errorf("stale records kept: %d", len(recs))
	}

	// Two launchers recorded: refused, nothing signalled.
	m1, m2 := startFrmProc(t, "sleep", "1000"), startFrmProc(t, "sleep", "1000")
	for i, m := range []*exec.Cmd{m1, m2} {
		frmWriteRecord(t, home, &murhome.Running{SessionID: a2a.NewID(a2a.PrefixSession), PID: m.Process.Pid, ProcessStart: frmStartOf(t, m.Process.Pid),
			Name: "m", Version: "1", RecordsDir: t.TempDir(), StartedAt: time.Now(), FormationID: id, FormationLifeline: true,
			FormationLauncher: &murhome.Launcher{PID: 1000 + i, ProcessStart: "5"}})
	}
	env, _, errb = frmEnv(map[string]string{"MURMUR_HOME": home})
	if code := stopFormation(context.Background(), env, id, time.Second, false); code != 1 ||
		errb.String() != "error[E-RUN-024]: formation "+id+" could not be ended: its members record 2 different launchers (pid 1001, pid 1000)\n  hint: the capsule is still running and its record is kept\n" &&
			errb.String() != "error[E-RUN-024]: formation "+id+" could not be ended: its members record 2 different launchers (pid 1000, pid 1001)\n  hint: the capsule is still running and its record is kept\n" {
		t.Errorf("two launchers = %d, %q", code, errb)
	}
	for _, m := range []*exec.Cmd{m1, m2} {
		if err := syscall.Kill(m.Process.Pid, 0); err != nil {
			t.Errorf("a member was signalled: %v", err)
		}
	}
}

// TestStopFormationLauncherGone: a launcher that already exited is named,
// a member still running after the wait fails the stop (FCLI-6).
func TestStopFormationLauncherGone(t *testing.T) {
	defer func(d time.Duration) { formationMembersWait = d }(formationMembersWait)
	formationMembersWait = 100 * time.Millisecond
	home := t.TempDir()
	id := a2a.NewID(a2a.PrefixFormation)
	member := startFrmProc(t, "sleep", "1000")
	dead := startFrmProc(t, "true")
	dead.Process.Wait()
	rec := &murhome.Running{SessionID: a2a.NewID(a2a.PrefixSession), PID: member.Process.Pid, ProcessStart: frmStartOf(t, member.Process.Pid),
		Name: "m", Version: "1", RecordsDir: t.TempDir(), StartedAt: time.Now(), FormationID: id, FormationLifeline: true,
		FormationLauncher: &murhome.Launcher{PID: dead.Process.Pid, ProcessStart: "1"}}
	frmWriteRecord(t, home, rec)
	env, out, errb := frmEnv(map[string]string{"MURMUR_HOME": home})
	if code := stopFormation(context.Background(), env, id, time.Second, false); code != 1 {
		t.Fatalf("exit %d", code)
	}
	want := "stopped:  " + id + "\n" + fmt.Sprintf("launcher: none — pid %d had already exited, so every lifeline was already closed\n", dead.Process.Pid) +
		"member:   " + rec.SessionID + "  m@1  still running\n"
	if out.String() != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	if errb.String() != "error[E-RUN-024]: formation "+id+" could not be ended: 1 of its members were still running 25 seconds later: "+rec.SessionID+"\n  hint: the capsule is still running and its record is kept\n" {
		t.Errorf("stderr = %q", errb)
	}
}

// TestStopFormationTimeoutZero: --timeout 0 SIGKILLs the launcher at once;
// its death closes the lifeline and the member goes (FCLI-6).
func TestStopFormationTimeoutZero(t *testing.T) {
	home := t.TempDir()
	id := a2a.NewID(a2a.PrefixFormation)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	launcher := exec.Command("sleep", "1000")
	launcher.Stdout = w // only the launcher holds the lifeline's write end
	member := exec.Command("sh", "-c", "read x")
	member.Stdin = r
	for _, c := range []*exec.Cmd{launcher, member} {
		if err := testmur.StartFake(c); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		t.Cleanup(func() { c.Process.Kill(); <-done })
	}
	r.Close()
	w.Close()
	frmWriteRecord(t, home, &murhome.Running{SessionID: a2a.NewID(a2a.PrefixSession), PID: member.Process.Pid, ProcessStart: frmStartOf(t, member.Process.Pid),
		Name: "m", Version: "1", RecordsDir: t.TempDir(), StartedAt: time.Now(), FormationID: id, FormationLifeline: true,
		FormationLauncher: &murhome.Launcher{PID: launcher.Process.Pid, ProcessStart: frmStartOf(t, launcher.Process.Pid)}})
	env, out, errb := frmEnv(map[string]string{"MURMUR_HOME": home})
	if code := stopFormation(context.Background(), env, id, 0, false); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	if want := fmt.Sprintf("launcher: pid %d, SIGKILL after 0s\n", launcher.Process.Pid); !strings.Contains(out.String(), want) ||
		!strings.HasSuffix(out.String(), "  m@1  no session_end\n") {
		t.Errorf("stdout = %q", out)
	}
}
