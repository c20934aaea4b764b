package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/trace"
)

// TestCanceledWhileWaiting_RND3_DLG8: the task is cancelled while it waits
// on a delegation: it ends CANCELED in phase delegation, task_canceled names
// the delegation, and the child is ended with DLG-8's reason.
func TestCanceledWhileWaiting_RND3_DLG8(t *testing.T) {
	w := newWorld(t)
	w.install(t, slow)
	dir := w.put(t, delegating("parent", spawnsAll, "slow", "work"))
	cmd, r, _ := w.start(t, dir, "--task", "go")
	// The task waits once its turn ended with the delegation out, showing
	// RND-1's status: then cancel it.
	var task string
	waitFor(t, 10*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(r.RecordsDir, "trace.jsonl"))
		_, after, ok := strings.Cut(string(b), `"event_type":"task_start"`)
		if !ok {
			return false
		}
		_, after, _ = strings.Cut(after, `"task_id":"`)
		task, _, _ = strings.Cut(after, `"`)
		return strings.Contains(rpc(t, r.URL, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"`+task+`"}}`),
			`"text":"waiting on delegate-task: 1 delegation(s) outstanding"`)
	})
	if got := rpc(t, r.URL, `{"jsonrpc":"2.0","id":2,"method":"CancelTask","params":{"id":"`+task+`"}}`); !strings.Contains(got, `"result"`) {
		t.Fatalf("CancelTask = %s", got)
	}
	_ = cmd.Wait()
	noneLeft(t, cmd.Process.Pid)
	recs := records(t, r.RecordsDir)
	d := of[trace.Delegation](t, recs)
	if len(d) != 1 || d[0].Outcome != "terminated" || d[0].Reason == nil || *d[0].Reason != "the delegating task was cancelled" {
		t.Fatalf("delegation = %+v", d)
	}
	c := of[trace.TaskCanceled](t, recs)
	if len(c) != 1 || c[0].Phase != "delegation" || len(c[0].DelegationIDs) != 1 || c[0].DelegationIDs[0] != *d[0].DelegationID {
		t.Errorf("task_canceled = %+v", c)
	}
	if end := of[trace.TaskEnd](t, recs); len(end) != 1 || end[0].ExitStatus != "canceled" {
		t.Errorf("task_end = %+v", end)
	}
}

// TestNoTurnLeft_DLG8: a task that ends its last allowed turn with a
// delegation out does not wait: the child is ended, the reason saying no
// turn was left to read its outcome.
func TestNoTurnLeft_DLG8(t *testing.T) {
	w := newWorld(t)
	w.install(t, slow)
	c := delegating("parent", spawnsAll, "slow", "work")
	c.maxTurns = 2
	dir := w.put(t, c)
	r, stderr, code := w.run(t, dir, "go")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	d := of[trace.Delegation](t, recs)
	if len(d) != 1 || d[0].Outcome != "terminated" || d[0].Reason == nil ||
		*d[0].Reason != "the delegating task had no inference turn left to read this outcome" {
		t.Fatalf("delegation = %+v", d)
	}
	if n := len(of[trace.TaskContinued](t, recs)); n != 0 {
		t.Errorf("%d continuations on the last turn", n)
	}
}

// rpc posts one JSON-RPC request to a public door and returns the answer.
func rpc(t testing.TB, url, body string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
