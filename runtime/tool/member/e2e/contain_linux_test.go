package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/trace"
)

// A member's tools cannot reach another member's files or
// credentials. In a real formation a scoped peer's bash cats the entry's
// running record (its operator token), a file in a sibling member's
// workdir and a file outside its workdir: each is "Permission denied"
// (Landlock); the same commands in its own workdir and $HOME work.
func TestScopedPeerReachesOnlyItsOwn_ISSUE9(t *testing.T) {
	testmur.NeedLandlock(t, 1, proc.LandlockABI)
	t.Parallel()
	p := newProject(t)
	// The entry's launch task holds the formation up (with --task the entry
	// ends with its task): its command waits on a fifo nobody opens.
	hold := p.fifo(t, "hold")
	p.install(t,
		capsule{name: "lead", shell: true, extra: peerExtra, script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: bash, input: {command: \"read x < " + hold + "\"}}]\n      - text: held\n"},
		capsule{name: "snoop", shell: true, contain: "scoped", extra: peerExtra, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "{{task}}"}}]
      - text: done
`},
		capsule{name: "sib", extra: peerExtra, script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: sib\n"},
	)
	p.roster(t, []string{"lead", "snoop", "sib"}, "lead:snoop,sib")
	l := p.start(t, "hold")
	_, snoopSes, snoopURL, snoopRecords := l.peer(t, "snoop")
	var sibWorkdir string
	for _, peer := range l.form.Peers {
		if peer.Name == "sib" {
			sibWorkdir = peer.Workdir
		}
	}
	record := filepath.Join(p.home, "running", l.entry.SessionID+".json")
	sibling := filepath.Join(sibWorkdir, "secret.txt")
	outside := filepath.Join(filepath.Dir(p.dir), "outside.txt")
	for _, f := range []string{sibling, outside} {
		if err := os.WriteFile(f, []byte("not yours\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	command := "for f in " + record + " " + sibling + " " + outside + `; do cat "$f" 2>&1; done; ` +
		`echo mine > mine.txt && cat mine.txt; echo home > "$HOME/h" && cat "$HOME/h"`
	c := operator(t, p, snoopSes, snoopURL)
	resp, err := c.SendMessage(t.Context(), a2a.SendMessageRequest{
		Message: a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(command)}},
	})
	if err != nil || resp.Task == nil {
		t.Fatalf("SendMessage = %+v, %v", resp, err)
	}
	if st := settle(t, c, resp.Task.ID); st != a2a.TaskStateCompleted {
		t.Fatalf("the task ended %s", st)
	}
	out := toolOutputs(t, records(t, snoopRecords), "bash")
	wantOut := strings.Join([]string{
		"cat: " + record + ": Permission denied",
		"cat: " + sibling + ": Permission denied",
		"cat: " + outside + ": Permission denied",
		"mine",
		"home",
	}, "\n")
	if len(out) != 1 || !strings.Contains(out[0], "Stdout:\n"+wantOut+"\n") {
		t.Errorf("the scoped peer's bash output = %q, want its stdout to be %q", out, wantOut)
	}
	if ss := of[trace.SessionStart](t, records(t, snoopRecords)); len(ss) != 1 || ss[0].ContainmentDecl != "scoped" || ss[0].ContainmentAchv != "scoped" {
		t.Errorf("snoop's session_start containment = %+v, want scoped/scoped", ss)
	}
	_ = syscall.Kill(l.cmd.Process.Pid, syscall.SIGTERM)
	l.wait(t)
}

// settle polls the task every 50 ms until it is terminal (no event reports
// it to an A2A client without a stream) and returns its state.
func settle(t *testing.T, c *client.Client, id a2a.TaskID) a2a.TaskState {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		task, err := c.GetTask(t.Context(), a2a.GetTaskRequest{ID: id})
		if err != nil {
			t.Fatalf("GetTask: %v", err)
		}
		if task.Status.State.Terminal() {
			return task.Status.State
		}
		<-tick.C
	}
}

// No scoped tool of any member reaches a runtime or a secret of the
// formation: with an OPENAI_API_KEY in the launcher's environment, a scoped
// peer's bash runs the probe against its own mur, the launcher, the entry's
// mur and a sibling's mur (their mem, environ, process_vm_readv, ptrace,
// thread by thread) and scans every readable /proc/*/environ and cmdline
// for the key: nothing gets through. (The launcher's and every member's
// environ used to be readable, and the peer's own mur's memory.)
func TestScopedPeerReachesNoRuntimeOrSecret(t *testing.T) {
	testmur.NeedLandlock(t, 1, proc.LandlockABI)
	t.Parallel()
	p := newProject(t)
	bin := testmur.TempDir(t)
	if out, err := testmur.Combined(exec.Command("go", "build", "-o", filepath.Join(bin, "probe"), "../../../../cmd/mur/testdata/probe")); err != nil {
		t.Fatalf("go build probe: %v\n%s", err, out)
	}
	key := make([]byte, 12)
	_, _ = rand.Read(key)
	p.env = append(p.env, "OPENAI_API_KEY=sk-probe-"+hex.EncodeToString(key), "PATH="+bin+":"+os.Getenv("PATH"))
	hold := p.fifo(t, "hold")
	p.install(t,
		capsule{name: "lead", shell: true, extra: peerExtra, script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: bash, input: {command: \"read x < " + hold + "\"}}]\n      - text: held\n"},
		capsule{name: "snoop", shell: true, contain: "scoped", extra: peerExtra, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "{{task}}"}}]
      - text: done
`},
		capsule{name: "sib", extra: peerExtra, script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: sib\n"},
	)
	p.roster(t, []string{"lead", "snoop", "sib"}, "lead:snoop,sib")
	l := p.start(t, "hold")
	_, snoopSes, snoopURL, snoopRecords := l.peer(t, "snoop")
	sibPID, _, _, _ := l.peer(t, "sib")
	command := fmt.Sprintf("probe %s $PPID %d %d %d; echo probe-exit=$?", hex.EncodeToString([]byte("sk-probe-")),
		l.cmd.Process.Pid, l.entry.PID, sibPID)
	c := operator(t, p, snoopSes, snoopURL)
	resp, err := c.SendMessage(t.Context(), a2a.SendMessageRequest{
		Message: a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(command)}},
	})
	if err != nil || resp.Task == nil {
		t.Fatalf("SendMessage = %+v, %v", resp, err)
	}
	if st := settle(t, c, resp.Task.ID); st != a2a.TaskStateCompleted {
		t.Fatalf("the task ended %s", st)
	}
	out := toolOutputs(t, records(t, snoopRecords), "bash")
	if len(out) != 1 || !strings.Contains(out[0], "probe done\n") || !strings.Contains(out[0], "probe-exit=0") {
		t.Fatalf("the probe did not finish: %q", out)
	}
	if strings.Contains(out[0], "reached:") {
		t.Errorf("a scoped peer's tool reached a runtime or a secret:\n%s", out[0])
	}
	_ = syscall.Kill(l.cmd.Process.Pid, syscall.SIGTERM)
	l.wait(t)
}
