package proc

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A confined command runs through the trampoline with nothing of the
// runtime's: no capability, no_new_privs, a seccomp filter; and a command
// the trampoline cannot exec is reported through its status pipe as the
// error os/exec itself would give (SHELL-3's <why>).
func TestTrampolineConfinesAndReportsItsExec(t *testing.T) {
	if _, err := LandlockABI(); err != nil {
		t.Skipf("the kernel offers no Landlock: %v", err)
	}
	dir := t.TempDir()
	sb, err := NewSandbox(&Policy{ReadWrite: []string{dir}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	var out, errOut bytes.Buffer
	fields, want := "CapEff|NoNewPrivs|Seccomp", "CapEff:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\n"
	if hasCap(unix.CAP_SETPCAP) { // the runtime may empty the bounding set
		fields, want = "CapEff|CapBnd|NoNewPrivs|Seccomp", "CapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\n"
	}
	cmd := exec.Command("/bin/sh", "-c", "grep -E '^("+fields+"):' /proc/self/status")
	cmd.Dir = dir
	p, err := Start(sb, cmd, &out, &errOut, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if ExitCode(cmd.ProcessState) != 0 || out.String() != want {
		t.Errorf("confined status = %q (exit %d, stderr %q), want %q", out.String(), ExitCode(cmd.ProcessState), errOut.String(), want)
	}
	if cmd.Path != "/bin/sh" {
		t.Errorf("cmd.Path = %q after the start, want the command's own", cmd.Path)
	}

	missing := exec.Command(dir + "/no-such-binary")
	_, err = sb.Spawn(missing)
	if err == nil || StartErrText(err) != "no such file or directory" || !strings.Contains(err.Error(), dir+"/no-such-binary") {
		t.Errorf("Spawn of a missing binary = %v, want fork/exec <path>: no such file or directory", err)
	}
}

// A command whose argv0 is a long path still starts through the trampoline
// (which finds its own arguments after it in /proc/self/cmdline).
func TestTrampolineTakesALongArgv0(t *testing.T) {
	if _, err := LandlockABI(); err != nil {
		t.Skipf("the kernel offers no Landlock: %v", err)
	}
	dir := t.TempDir()
	sb, err := NewSandbox(&Policy{ReadWrite: []string{dir}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	var out, errOut bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", "echo started")
	cmd.Args[0] = "/" + strings.Repeat("a/", 1500) + "sh"
	cmd.Dir = dir
	p, err := Start(sb, cmd, &out, &errOut, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if out.String() != "started\n" {
		t.Errorf("confined sh with a %d-byte argv0 = %q (exit %d, stderr %q), want started", len(cmd.Args[0]), out.String(), ExitCode(cmd.ProcessState), errOut.String())
	}
}
