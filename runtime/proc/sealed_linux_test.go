package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sealedPolicy is a sealed policy over a workdir, a HOME and a TMPDIR of
// the test's own, with limits.
func sealedPolicy(t *testing.T, l Limits) (*Policy, string) {
	t.Helper()
	if _, err := LandlockABI(); err != nil {
		t.Skipf("the kernel offers no Landlock: %v", err)
	}
	rec := t.TempDir()
	work, home, tmp := filepath.Join(rec, "work"), filepath.Join(rec, "home"), filepath.Join(rec, "tmp")
	for _, d := range []string{work, home, tmp, filepath.Join(rec, "sealed", "root")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &Policy{ReadWrite: []string{work, home, tmp}, Seal: &Seal{Root: filepath.Join(rec, "sealed", "root"),
		Etc: filepath.Join(rec, "sealed", "etc"), Limits: l, Name: "sealed-test"}}, work
}

// runSealed runs script with /bin/sh in a sealed sandbox of p.
func runSealed(t *testing.T, p *Policy, dir, script string) (string, string, int) {
	t.Helper()
	sb, err := NewSandbox(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if sb.Class() != Sealed {
		t.Fatalf("Class = %s, want sealed", sb.Class())
	}
	var out, errOut bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	pr, err := Start(sb, cmd, &out, &errOut, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	<-pr.Done()
	return out.String(), errOut.String(), ExitCode(cmd.ProcessState)
}

// A sealed command is in a root of its own: its working directory is the
// workdir, the only processes it sees are its init and its own, the host's
// /etc/passwd and everything outside the composed root are absent, the
// network has only lo, and what it writes in the workdir lands on the host.
func TestSealedTrampolineComposesItsRoot(t *testing.T) {
	p, work := sealedPolicy(t, DefaultLimits)
	out, errOut, code := runSealed(t, p, work,
		`pwd; set -- /proc/[0-9]*; echo $# $1 $(test $2 = /proc/$$ && echo self); cut -d: -f1 /etc/passwd | tr '\n' ' '; echo; `+
			`test -e /etc/shadow || echo no-shadow; test -e /root || echo no-root; ls /sys 2>/dev/null || echo no-sys; `+
			`ls /sys/class/net 2>/dev/null; grep : /proc/net/dev | cut -d: -f1 | tr -d " "; echo hi > out.txt; hostname`)
	accounts := "root "
	if os.Getuid() != 0 {
		accounts += "tool "
	}
	want := work + "\n2 /proc/1 self\n" + accounts + "\nno-shadow\nno-root\nno-sys\nlo\nmur-sealed\n"
	if code != 0 || out != want {
		t.Errorf("sealed sh = %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
	if b, err := os.ReadFile(filepath.Join(work, "out.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("out.txt = %q, %v; want the command's write on the host", b, err)
	}
}

// A sealed command is held to its limits: a write past FileSize fails (and
// SIGXFSZ ends the writer), the rlimits are set, and a fork bomb stops at
// Processes (the session cgroup's pids.max as root, RLIMIT_NPROC in the
// user namespace of a runtime that is not; both count the call's init and
// its threads too).
func TestSealedTrampolineHoldsItsLimits(t *testing.T) {
	p, work := sealedPolicy(t, Limits{Processes: 32, OpenFiles: 64, FileSize: 1 << 20, CgroupPids: 32})
	out, errOut, code := runSealed(t, p, work,
		`head -c 2000000 /dev/zero > big; echo "write=$? size=$(wc -c < big)"; ulimit -n; ulimit -f; `+
			`( i=0; while [ $i -lt 100 ]; do sleep 3 & i=$((i+1)); echo $i > count; done ) 2>/dev/null; `+
			`read n < count; echo "forked=$n"`)
	if code != 0 || !strings.HasPrefix(out, "write=153 size=1048576\n64\n2048\nforked=") {
		t.Fatalf("sealed sh = %d, stdout %q, stderr %q; want the write stopped at 1 MiB, the limits set, a count of forks", code, out, errOut)
	}
	var forked int
	if _, err := fmt.Sscanf(out[strings.Index(out, "forked=")+len("forked="):], "%d", &forked); err != nil || forked < 1 || forked >= 32 {
		t.Errorf("forked = %d (%v) in a fork bomb; want it stopped below the 32 processes", forked, err)
	}
}
