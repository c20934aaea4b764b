package testmur

import (
	"bufio"
	"errors"
	"os/exec"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/runtime/wire"
)

// Lines is a command started by StartLines: a goroutine pumps its stdout,
// line by line, into C, and reaps it at EOF; its stderr is kept in Stderr.
// The lines a test reads are the process protocol's (a readiness line, a
// formation line), decoded through runtime/wire.
type Lines struct {
	Cmd    *exec.Cmd
	Stderr *Buffer
	c      chan string
	done   chan struct{}
	err    error
}

// pumped bounds the lines a test leaves unread before the command blocks
// on its stdout: far more than any mur prints under --json.
const pumped = 1024

// StartLines starts cmd (through Start) with its stdout pumped into C and
// its stderr into Stderr (cmd's own Stdout and Stderr must be unset). The
// test's cleanup SIGKILLs it — its whole process group or session when it
// has one of its own (Setpgid, Setsid) — and waits for the pump.
func StartLines(t testing.TB, cmd *exec.Cmd) *Lines {
	t.Helper()
	l := &Lines{Cmd: cmd, Stderr: &Buffer{}, c: make(chan string, pumped), done: make(chan struct{})}
	cmd.Stderr = l.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			l.c <- sc.Text()
		}
		close(l.c)
		l.err = cmd.Wait()
		close(l.done)
	}()
	t.Cleanup(func() {
		if a := cmd.SysProcAttr; a != nil && (a.Setsid || a.Setpgid) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		} else {
			_ = cmd.Process.Kill()
		}
		for range l.c {
		}
		<-l.done
	})
	return l
}

// C is the command's stdout, a line at a time; closed at EOF.
func (l *Lines) C() <-chan string { return l.c }

// Done is closed once the command has been reaped.
func (l *Lines) Done() <-chan struct{} { return l.done }

// Err is the command's Wait error, once Done is closed.
func (l *Lines) Err() error { <-l.done; return l.err }

// Line returns the next stdout line; at EOF it fails the test with the
// command's end and stderr.
func (l *Lines) Line(t testing.TB) string {
	t.Helper()
	s, ok := <-l.c
	if !ok {
		<-l.done
		t.Fatalf("%q ended (%v) before printing a line; stderr:\n%s", l.Cmd.Args, l.err, l.Stderr.String())
	}
	return s
}

// Ready reads the next line as a readiness line (capsule.md CLI-4).
func (l *Lines) Ready(t testing.TB) wire.Ready {
	t.Helper()
	s := l.Line(t)
	r, err := wire.ParseReady([]byte(s))
	if err != nil {
		t.Fatalf("readiness line %q: %v; stderr:\n%s", s, err, l.Stderr.String())
	}
	return r
}

// Formation reads the next line as a formation line (formations.md FCLI-1).
func (l *Lines) Formation(t testing.TB) wire.Formation {
	t.Helper()
	s := l.Line(t)
	f, err := wire.ParseFormation([]byte(s))
	if err != nil {
		t.Fatalf("formation line %q: %v; stderr:\n%s", s, err, l.Stderr.String())
	}
	return f
}

// Wait reads stdout to its end, waits for the reap and returns the exit
// code (-1 when a signal ended the command).
func (l *Lines) Wait() int {
	for range l.c {
	}
	<-l.done
	return ExitCode(l.err)
}

// ExitCode is a finished command's exit code from its Wait error: 0 for
// nil, -1 for an end by a signal or an error that is no exit.
func ExitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}
