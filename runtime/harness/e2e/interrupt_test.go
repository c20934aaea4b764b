package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestDeadlineInterrupts is PROC-16 for the session deadline: a harness
// still thinking when --deadline passes is interrupted with SIGTERM to its
// group, and the task ends canceled in phase inference, nothing left. The
// session serves, so the deadline's window is not spent on the launch
// task's start: the harness has shown it runs (the fifo) well before it.
func TestDeadlineInterrupts(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n", `{"runs":[
		{"steps":[{"spawn":30},{"tool":{"name":"sh","args":{"command":"echo started > started.fifo"}}},{"sleep":"60s"},{"answer":"never"}]}]}`)
	man, _ := os.ReadFile(filepath.Join(c.dir, "murmur.yaml"))
	c.write(t, "murmur.yaml", strings.Replace(string(man), "allow: [echo, sleep]", "allow: [echo, sleep, sh]", 1))
	testmur.FIFO(t, filepath.Join(c.dir, "started.fifo"))
	const deadline = 15 * time.Second
	s := c.serveWith(t, "--deadline", deadline.String())
	res, err := s.cl.SendMessage(context.Background(), a2a.SendMessageRequest{Message: a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage),
		Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("think")}}, Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	s.started(t, filepath.Join(c.dir, "started.fifo"), res.Task.ID)
	// The deadline ends the session, the harness interrupted within its
	// grace: bounded, so a harness never interrupted fails here.
	select {
	case <-s.done:
	case <-time.After(deadline + interruptBound):
		t.Fatalf("mur still running %s after its start, past its %s deadline", deadline+interruptBound, deadline)
	}
	noneLeft(t, s.cmd.Process.Pid)
	spawned(t, c)
	recs := records(t, s.r.RecordsDir)
	only[trace.DeadlineReached](t, recs)
	if ex := only[trace.HarnessExit](t, recs); ex.Cause != "interrupted" || ex.Signal == nil || *ex.Signal != "SIGTERM" {
		t.Errorf("harness_exit = %+v, want interrupted by SIGTERM", ex)
	}
	if tc := only[trace.TaskCanceled](t, recs); tc.Phase != "inference" {
		t.Errorf("task_canceled = %+v, want phase inference (LOOP-16)", tc)
	}
	if !strings.Contains(s.stderr.String(), "error[E-RUN-040]: the task ended canceled: deadline\n") {
		t.Errorf("stderr = %q, want E-RUN-040", s.stderr.String())
	}
}

// TestStopInterrupts is PROC-16 for mur's own SIGTERM and for the door's
// session/stop: the session ends its running harness task by interrupting
// the harness, and nothing the run started outlives the task (session/stop)
// or mur (SIGTERM).
func TestStopInterrupts(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"SIGTERM", "session/stop"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			c := newCap(t, "claude", "", "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n", `{"runs":[
				{"steps":[{"spawn":30},{"tool":{"name":"sh","args":{"command":"echo started > started.fifo"}}},{"sleep":"30s"},{"answer":"never"}]},
				{"steps":[{"answer":"after the stop"}]}]}`)
			man, _ := os.ReadFile(filepath.Join(c.dir, "murmur.yaml"))
			c.write(t, "murmur.yaml", strings.Replace(string(man), "allow: [echo, sleep]", "allow: [echo, sleep, sh]", 1))
			testmur.FIFO(t, filepath.Join(c.dir, "started.fifo"))
			s := c.serve(t)
			res, err := s.cl.SendMessage(context.Background(), a2a.SendMessageRequest{Message: a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage),
				Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("think")}}, Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
			if err != nil {
				t.Fatal(err)
			}
			s.started(t, filepath.Join(c.dir, "started.fifo"), res.Task.ID)
			if how == "SIGTERM" {
				// SIGTERM to mur interrupts the harness at once: mur is gone
				// within 15 s, before the 20 s after which it would exit
				// anyway, ending what is left (SES-8).
				const bound = 15 * time.Second
				_ = s.cmd.Process.Signal(syscall.SIGTERM)
				select {
				case <-s.done:
				case <-time.After(bound):
					t.Fatalf("mur still running %s after SIGTERM: the harness was not interrupted", bound)
				}
				noneLeft(t, s.cmd.Process.Pid)
			} else {
				// session/stop cancels the task and leaves the process
				// serving (METH-STOP-1). The door shows CANCELED at once; the
				// next task in the queue runs once the canceled one has
				// ended, so by its answer the first run is gone, mur not.
				if st, err := s.cl.StopSession(context.Background()); err != nil || len(st.Canceled) != 1 || st.Canceled[0] != res.Task.ID {
					t.Fatalf("session/stop = %+v, %v", st, err)
				}
				if next, err := s.send(t, "", "next"); err != nil || next.Status.State != a2a.TaskStateCompleted {
					t.Fatalf("the task after session/stop = %+v, %v", next, err)
				}
				onlyMur(t, s)
				s.stop(t)
			}
			spawned(t, c)
			recs := records(t, s.r.RecordsDir)
			if ex := of[trace.HarnessExit](t, recs); ex[0].Cause != "interrupted" || ex[0].Signal == nil || *ex[0].Signal != "SIGTERM" {
				t.Errorf("harness_exit = %+v, want interrupted by SIGTERM", ex[0])
			}
			// The phase is inference or, when the stop beat the bridged
			// call's return, that call's turn: the fifo is read before the
			// call answers.
			only[trace.TaskCanceled](t, recs)
			only[trace.SessionEnd](t, recs)
		})
	}
}
