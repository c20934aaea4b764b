package e2e

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestImpostorChildRefused: delegate-task hands a child its task only when
// the child's Agent Card verifies against the spawner's card key (A2A
// §8.4.3). The parent holds the operator key its session read at start; the
// test then replaces the key in $MURMUR_HOME, so the child it starts signs
// with another key — a door at the child's address the parent cannot trust.
// The call fails naming the card, and the child never gets the task.
func TestImpostorChildRefused(t *testing.T) {
	w := newWorld(t)
	up, release := filepath.Join(w.dir, "up"), filepath.Join(w.dir, "release")
	testmur.FIFO(t, up)
	testmur.FIFO(t, release)
	w.install(t, quick("worker", unconfined)) // a child holds no more than its parent
	dir := w.put(t, capsuleFor("parent", unconfined+"  spawn:\n    allow: [local/worker@0.1.0]\n", `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo up > `+up+`; cat `+release+`"}}]
      - tool_calls: [{name: delegate-task, input: {capsule: worker, version: "0.1.0", task: "work"}}]
      - text: "PARENT-DONE"
`))
	cmd, r, stderr := w.start(t, dir, "--task", "go")
	readLine(t, up, cmd.Process) // the parent's task is running: its key is read

	pub, err := murhome.CardPublicKey(w.home)
	if err != nil {
		t.Fatal(err)
	}
	_, other, _ := ed25519.GenerateKey(nil)
	der, _ := x509.MarshalPKCS8PrivateKey(other)
	if err := os.WriteFile(murhome.CardKeyPath(w.home), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if now, _ := murhome.CardPublicKey(w.home); now.Equal(pub) {
		t.Fatal("the card key was not replaced")
	}
	testmur.WriteFIFO(t, release, []byte("go\n"), cmd.Process)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mur run: %v\n%s", err, stderr.String())
	}
	noneLeft(t, cmd.Process.Pid)

	recs := records(t, r.RecordsDir)
	out := toolOutputs(t, recs, "delegate-task")
	want := "worker's Agent Card does not verify against its spawner's card key (no signature on the card verifies with the key"
	if len(out) != 1 || !strings.Contains(out[0], `"status":"failed"`) || !strings.Contains(out[0], want) ||
		!strings.Contains(out[0], "the task was not handed over") {
		t.Fatalf("delegate-task result =\n%s\nwant failed, %q", strings.Join(out, "\n"), want)
	}
	d := of[trace.Delegation](t, recs)
	if len(d) != 1 || d[0].Outcome != "failed" || d[0].Reason == nil || !strings.Contains(*d[0].Reason, want) {
		t.Fatalf("delegation = %+v", d)
	}
	if n := len(of[trace.DelegationStart](t, recs)); n != 0 {
		t.Errorf("%d delegation_start for a child whose card did not verify", n)
	}
	// The child's own trace, if it got as far as one, holds no task.
	children, _ := filepath.Glob(filepath.Join(r.Workdir, ".murmur", "children", "worker-*", ".murmur", "sessions", "*", "trace.jsonl"))
	for _, c := range children {
		b, _ := os.ReadFile(c)
		if strings.Contains(string(b), `"event_type":"a2a_task_received"`) {
			t.Errorf("the child received the task: %s", c)
		}
	}
}
