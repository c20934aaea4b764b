package testmur

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// LeftBound is how long a process just signalled may take to leave /proc: a
// SIGKILL is delivered when the process next runs, which on a loaded machine
// may be a while after kill(2) returned.
const LeftBound = 10 * time.Second

// Within polls cond every 10 ms until it holds (true) or d has passed
// (false): for a state of another process that no event reports (a line in
// its trace, a process's exit). d bounds a wait for an event; it is never a
// window a result must arrive in.
func Within(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		<-tick.C
	}
	return true
}

// Eventually is Within failing t, with the message format and args, when
// cond has not held within d.
func Eventually(t testing.TB, d time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	if !Within(d, cond) {
		t.Fatalf("not within %s: %s", d, fmt.Sprintf(format, args...))
	}
}

// Left polls session sid until no live process of it other than those in
// except is left (nil) or d has passed (what is left, as InSession lists it).
func Left(sid int, d time.Duration, except ...int) []string {
	var left []string
	Within(d, func() bool {
		left = left[:0]
		for _, p := range InSession(sid) {
			if !excepted(p, except) {
				left = append(left, p)
			}
		}
		return len(left) == 0
	})
	if len(left) == 0 {
		return nil
	}
	return left
}

// NoneLeft fails t unless, within LeftBound, no live process of session sid
// is left but those in except (a command started in a session of its own has
// its pid as sid: mur's whole tree).
func NoneLeft(t testing.TB, sid int, except ...int) {
	t.Helper()
	if left := Left(sid, LeftBound, except...); len(left) > 0 {
		t.Errorf("processes left behind in session %d after %s: %s", sid, LeftBound, strings.Join(left, "; "))
	}
}

// excepted reports whether proc ("<pid> (<comm>)") is one of pids.
func excepted(proc string, pids []int) bool {
	s, _, _ := strings.Cut(proc, " ")
	pid, _ := strconv.Atoi(s)
	for _, p := range pids {
		if p == pid {
			return true
		}
	}
	return false
}
