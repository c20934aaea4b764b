package murhome

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"unsafe"

	"github.com/murmur-go/mur/internal/testmur"
)

// startSleeper starts a real long-running process and makes sure it is gone
// when the test ends.
func startSleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	if err := testmur.StartFake(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if Check(cmd.Process.Pid, "") != Gone {
			t.Errorf("pid %d still runs after the test", cmd.Process.Pid)
		}
	})
	return cmd
}

func TestStartTimeIsStatField22SES6(t *testing.T) {
	t.Parallel()
	got, err := StartTime(os.Getpid())
	if err != nil {
		t.Fatalf("StartTime(self) error = %v", err)
	}
	if _, err := strconv.ParseUint(got, 10, 64); err != nil {
		t.Errorf("StartTime(self) = %q, not clock ticks", got)
	}
	again, _ := StartTime(os.Getpid())
	if again != got {
		t.Errorf("StartTime(self) changed: %q then %q", got, again)
	}
	child := startSleeper(t)
	cs, err := StartTime(child.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.ParseUint(cs, 10, 64); n < mustUint(t, got) {
		t.Errorf("child start %s is before parent start %s", cs, got)
	}
}

func mustUint(t *testing.T, s string) uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCheckCLI12(t *testing.T) {
	t.Parallel()
	child := startSleeper(t)
	pid := child.Process.Pid
	start, err := StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		start string
		want  Liveness
	}{
		{"matching start", start, Alive},
		{"other start", start + "1", Reused},
		{"no recorded start", "", Unconfirmed},
	}
	for _, c := range cases {
		if got := Check(pid, c.start); got != c.want {
			t.Errorf("%s: Check(%d, %q) = %v, want %v", c.name, pid, c.start, got, c.want)
		}
	}

	done := startSleeper(t)
	dpid := done.Process.Pid
	dstart, _ := StartTime(dpid)
	done.Process.Kill()
	done.Wait()
	if got := Check(dpid, dstart); got != Gone {
		t.Errorf("Check(reaped pid) = %v, want gone", got)
	}
}

func TestCheckZombieIsGone(t *testing.T) {
	t.Parallel()
	z := startSleeper(t)
	start, _ := StartTime(z.Process.Pid)
	if err := z.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Wait for it to become a zombie without reaping it (waitid WNOWAIT).
	var info [128]byte // siginfo_t
	const pPID, wExited, wNoWait = 1, 0x4, 0x01000000
	if _, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(z.Process.Pid), uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0); e != 0 {
		t.Fatalf("waitid: %v", e)
	}
	if got := Check(z.Process.Pid, start); got != Gone {
		t.Errorf("Check(zombie) = %v, want gone", got)
	}
}

func TestSignalVerifiedCLI13(t *testing.T) {
	t.Parallel()
	child := startSleeper(t)
	pid := child.Process.Pid
	start, _ := StartTime(pid)

	if err := SignalVerified(pid, start+"0", syscall.SIGTERM); !errors.Is(err, ErrReused) {
		t.Errorf("SignalVerified(other start) = %v, want ErrReused", err)
	}
	if err := SignalVerified(pid, "", syscall.SIGTERM); !errors.Is(err, ErrStartUnreadable) {
		t.Errorf("SignalVerified(no start) = %v, want ErrStartUnreadable", err)
	}
	if Check(pid, start) != Alive {
		t.Fatal("a refused SignalVerified signalled the process")
	}
	if err := SignalVerified(pid, start, syscall.SIGTERM); err != nil {
		t.Fatalf("SignalVerified() = %v", err)
	}
	err := child.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("child ended with %v, want SIGTERM", err)
	}
	if err := SignalVerified(pid, start, syscall.SIGTERM); !errors.Is(err, ErrGone) {
		t.Errorf("SignalVerified(reaped) = %v, want ErrGone", err)
	}
}
