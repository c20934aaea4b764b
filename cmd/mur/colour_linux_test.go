package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/murmur-go/mur/internal/testmur"
)

// openPTY opens a pseudo-terminal pair: the controlling side the test
// reads, and the terminal a child writes to.
func openPTY(t *testing.T) (ptm, pts *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptm.Close() })
	return ptm, pts
}

// onTerminal runs mur with stdout and stderr on a pseudo-terminal and
// returns what it wrote there.
func (e *artEnv) onTerminal(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	ptm, pts := openPTY(t)
	cmd := exec.Command(murBin, args...)
	cmd.Dir = filepath.Join(e.root, dir)
	cmd.Env = append(append(os.Environ(), "MURMUR_HOME="+e.home, "TERM=xterm"), env...)
	cmd.Stdout, cmd.Stderr = pts, pts
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	pts.Close() // the child holds it; EOF (EIO) once the child is gone
	var out bytes.Buffer
	_, err := io.Copy(&out, ptm)
	var pe *os.PathError
	if err != nil && !(errors.As(err, &pe) && errors.Is(pe.Err, syscall.EIO)) {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return out.String()
}

// TestColourOnTerminal: on a terminal ✓ is green and ✗, error and warning
// are coloured; NO_COLOR=1 turns colour off; a pipe never gets it (every
// other test reads a pipe and compares exact texts).
func TestColourOnTerminal(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{
		"proj/murmur.yaml": "name: app\nversion: 1.0.0\ncapabilities:\n  shel: {allow: [bash]}\n" +
			"artifacts:\n  - {name: fmt, version: 2.0.0}\ninference:\n  driver: {kind: scripted, script: script.yaml}\n",
		"proj/script.yaml": doctorScript,
	})
	out := e.onTerminal(t, "proj", nil, "doctor")
	for _, want := range []string{sgrGreen + "✓" + sgrReset + " manifest ", sgrRed + "✗" + sgrReset + " artifact fmt@2.0.0",
		sgrYellow + "warning" + sgrReset + "[W-SEC-019]"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor on a terminal lacks %q:\n%q", want, out)
		}
	}
	out = e.onTerminal(t, "", nil, "stop", "@1")
	if !strings.HasPrefix(out, sgrRed+"error"+sgrReset+"[E-RUN-022]: ") {
		t.Errorf("an error on a terminal = %q", out)
	}
	out = e.onTerminal(t, "", nil, "list", "--al")
	if !strings.HasPrefix(out, sgrRed+"error"+sgrReset+": unknown flag --al") {
		t.Errorf("a usage error on a terminal = %q", out)
	}
	out = e.onTerminal(t, "proj", []string{"NO_COLOR=1"}, "doctor")
	if strings.Contains(out, "\x1b[") || !strings.Contains(out, "✓ manifest ") {
		t.Errorf("doctor with NO_COLOR=1 on a terminal = %q", out)
	}
	out = e.onTerminal(t, "proj", nil, "doctor", "--json")
	if strings.Contains(out, "\x1b[") {
		t.Errorf("doctor --json on a terminal is coloured: %q", out)
	}
}

// TestColourize: only the marks change.
func TestColourize(t *testing.T) {
	t.Parallel()
	in := "error[E-X-1]: a ✓ b\n  hint: h\nwarning[W-X-1]: w\n✗ c: error[ inside stays\nerror: usage\n"
	want := sgrRed + "error" + sgrReset + "[E-X-1]: a " + sgrGreen + "✓" + sgrReset + " b\n  hint: h\n" +
		sgrYellow + "warning" + sgrReset + "[W-X-1]: w\n" + sgrRed + "✗" + sgrReset + " c: error[ inside stays\n" +
		sgrRed + "error" + sgrReset + ": usage\n"
	if got := colourize(in); got != want {
		t.Errorf("colourize =\n%q\nwant\n%q", got, want)
	}
}
