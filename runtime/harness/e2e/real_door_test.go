package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
	anthropic "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	"github.com/murmur-go/mur/runtime/trace"
)

const sleepingLifecycle = "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n"

// TestRealClaudeThreaded is PTEST-8 (d): two door tasks in one context —
// the second resumes the real Claude Code's session through
// harness-session.json; then the CLI's stored session is removed and the
// next task fails E-RUN-036, the file byte-identical (THR-1, THR-2, THR-4).
func TestRealClaudeThreaded(t *testing.T) {
	t.Parallel()
	c, fake := realClaude(t, "echo", "", sleepingLifecycle+"  conversation: threaded\n")
	fake.Enqueue(anthropic.Text("FIRST"), anthropic.Text("SECOND"), anthropic.Text("UNREACHABLE"))
	s := c.serve(t)
	if task, err := s.send(t, "ctx-real", "first"); err != nil || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("first task = %+v, %v; stderr %s", task, err, s.stderr.String())
	}
	path := filepath.Join(c.home, "conversations", "hx-claude", "ctx-real", "harness-session.json")
	entry, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if task, err := s.send(t, "ctx-real", "second"); err != nil || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("second task = %+v, %v", task, err)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || len(reqs[1].Decoded.Messages) < 3 {
		t.Fatalf("the second task's request holds %d messages, want the first task's conversation before it", len(reqs[1].Decoded.Messages))
	}
	after, _ := os.ReadFile(path)
	sessions := of[trace.HarnessSession](t, records(t, s.r.RecordsDir))
	if len(sessions) != 2 || sessions[0].HarnessSessionID != sessions[1].HarnessSessionID || !strings.Contains(string(entry), sessions[0].HarnessSessionID) {
		t.Fatalf("harness_session = %+v, entry %s", sessions, entry)
	}
	id := sessions[0].HarnessSessionID
	stored, _ := filepath.Glob(filepath.Join(c.hhome, ".claude", "projects", "*", id+".jsonl"))
	if len(stored) != 1 {
		t.Fatalf("claude's stored session %s: %v", id, stored)
	}
	if err := os.Remove(stored[0]); err != nil {
		t.Fatal(err)
	}
	task, err := s.send(t, "ctx-real", "third")
	want := "the harness 'claude-code' could not continue session " + id + ", which context 'ctx-real' names: No conversation found with session ID: " + id +
		" (that id is recorded in " + path + ")"
	if err != nil || task.Status.State != a2a.TaskStateFailed || text(task) != "error: "+want {
		t.Errorf("third task = %q (%v), want %q", text(task), err, want)
	}
	if now, _ := os.ReadFile(path); string(now) != string(after) {
		t.Errorf("harness-session.json changed:\n%s\nwas\n%s", now, after)
	}
	s.stop(t)
	noFailures(t, fake.Failures())
}

// TestRealClaudeCancel is PTEST-8 (e): CancelTask while the real Claude
// Code waits on a bridged `sleep 30` ends the task CANCELED, and the
// harness's group is gone once it is (PROC-16).
func TestRealClaudeCancel(t *testing.T) {
	t.Parallel()
	c, fake := realClaude(t, "bash", "", sleepingLifecycle)
	fifo := testmur.FIFO(t, filepath.Join(c.dir, "started.fifo"))
	fake.Enqueue(anthropic.Uses(anthropic.ToolUse{Name: "mcp__mur__bash", Input: `{"command":"echo started > started.fifo; sleep 30"}`}))
	s := c.serve(t)
	res, err := s.cl.SendMessage(context.Background(), a2a.SendMessageRequest{Message: a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage),
		Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("sleep")}}, Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	s.started(t, fifo, res.Task.ID)
	if _, err := s.cl.CancelTask(context.Background(), a2a.CancelTaskRequest{ID: res.Task.ID}); err != nil {
		t.Fatal(err)
	}
	for range s.cl.SubscribeToTask(context.Background(), a2a.SubscribeToTaskRequest{ID: res.Task.ID}) {
	}
	got, err := s.cl.GetTask(context.Background(), a2a.GetTaskRequest{ID: res.Task.ID})
	if err != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("task = %+v, %v", got, err)
	}
	// The door shows CANCELED at once; the harness's group is gone soon
	// after, while mur serves on.
	s.harnessGone(t)
	s.stop(t)
	recs := records(t, s.r.RecordsDir)
	// Within the grace: SIGKILL would mean it ran out (PROC-16; both CLIs
	// exit 143 on SIGTERM to the group).
	ex := only[trace.HarnessExit](t, recs)
	if ex.Cause != "interrupted" || ex.Signal != nil && *ex.Signal == "SIGKILL" {
		t.Errorf("harness_exit = %+v", ex)
	}
	if tc := only[trace.TaskCanceled](t, recs); tc.Phase != "turn" {
		t.Errorf("task_canceled = %+v, want phase turn: the bridged call's (LOOP-16)", tc)
	}
	noFailures(t, fake.Failures())
}
