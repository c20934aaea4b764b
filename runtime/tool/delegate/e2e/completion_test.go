package e2e

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestCompletionWrongSession_DLG7: a completion addressed to another
// session gets DLG-7's JSON-RPC error; one naming no live delegation of
// this session is -31002; neither starts a task.
func TestCompletionWrongSession_DLG7(t *testing.T) {
	w := newWorld(t)
	w.install(t, quick("worker", ""))
	dir := w.put(t, capsule{name: "parent", caps: "  spawn:\n    allow: [local/worker@0.1.0]\n",
		script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: idle\n"})
	cmd := w.command(dir, "--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	var r readiness
	if b, _ := bufio.NewReader(out).ReadString('\n'); !decodeInto(b, &r) {
		t.Fatalf("readiness line %q", b)
	}
	post := func(session, delegation string) string {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"msg_1","role":"ROLE_USER","parts":[{"text":"{}"}]}}}`
		req, _ := http.NewRequest(http.MethodPost, r.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("x-murmur-task-origin", "completion")
		req.Header.Set("x-murmur-task-trust", "trusted")
		req.Header.Set("x-murmur-completion-session", session)
		req.Header.Set("x-murmur-delegation-id", delegation)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	const other = "ses_0000000000000000000000000000beef"
	const dlg = "dlg_0000000000000000000000000000cafe"
	if got, want := post(other, dlg), `{"jsonrpc":"2.0","id":7,"error":{"code":-31001,"message":"completion is addressed to session `+other+
		`, which is not the session running here","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"COMPLETION_MISADDRESSED","domain":"murmur.nexus","metadata":{"addressedSession":"`+other+`"}}]}}`; got != want {
		t.Errorf("misaddressed completion =\n%s\nwant\n%s", got, want)
	}
	if got, want := post(r.SessionID, dlg), `{"jsonrpc":"2.0","id":7,"error":{"code":-31002,"message":"Completion not awaited: no delegation here waits for it","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"COMPLETION_NOT_AWAITED","domain":"murmur.nexus","metadata":{"delegationId":"`+dlg+`"}}]}}`; got != want {
		t.Errorf("unawaited completion =\n%s\nwant\n%s", got, want)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mur run after SIGTERM: %v", err)
	}
	noneLeft(t, cmd.Process.Pid)
	recs := records(t, r.RecordsDir)
	if n := len(of[trace.TaskStart](t, recs)) + len(of[trace.A2ATaskReceived](t, recs)); n != 0 {
		t.Errorf("a completion started a task: %d task records", n)
	}
}
