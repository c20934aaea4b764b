package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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
	cmd, r, _ := w.start(t, dir, "--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
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

// TestCompletionMatched_DLG7: a completion naming a live delegation of this
// session is handed to it and answered with a message — ROLE_AGENT, one
// text part `completion received for delegation <id>` — starting no task;
// its outcome is the one the parent continues with, and a second posting,
// or the child's process ending after it, reports nothing twice.
func TestCompletionMatched_DLG7(t *testing.T) {
	w := newWorld(t)
	w.install(t, slow)
	dir := w.put(t, delegating("parent", spawnsAll, "slow", "work"))
	cmd, r, stderr := w.start(t, dir, "--task", "go")
	var dlg string
	waitFor(t, 10*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(r.RecordsDir, "trace.jsonl"))
		_, after, ok := strings.Cut(string(b), `"event_type":"delegation_start"`)
		if !ok {
			return false
		}
		_, after, _ = strings.Cut(after, `"delegation_id":"`)
		dlg, _, _ = strings.Cut(after, `"`)
		return strings.Contains(string(b), `"event_type":"tool_call"`) // started: the child holds its task
	})
	comp := `{"delegation_id":"` + dlg + `","capsule_name":"slow","capsule_version":"0.1.0","session_id":"ses_0000000000000000000000000000f00d","status":"ok","workdir":"/nowhere","duration_ms":7,"detail":"posted by the test"}`
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "SendMessage", "params": map[string]any{
		"message": map[string]any{"messageId": "msg_2", "role": "ROLE_USER", "parts": []any{map[string]string{"text": comp}}}}})
	post := func() string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, r.URL, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("x-murmur-task-origin", "completion")
		req.Header.Set("x-murmur-task-trust", "trusted")
		req.Header.Set("x-murmur-completion-session", r.SessionID)
		req.Header.Set("x-murmur-delegation-id", dlg)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	var answer struct {
		Result struct {
			Message *struct {
				Role  string `json:"role"`
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
			Task json.RawMessage `json:"task"`
		} `json:"result"`
	}
	got := post()
	if err := json.Unmarshal([]byte(got), &answer); err != nil || answer.Result.Message == nil || answer.Result.Task != nil ||
		answer.Result.Message.Role != "ROLE_AGENT" || len(answer.Result.Message.Parts) != 1 ||
		answer.Result.Message.Parts[0].Text != "completion received for delegation "+dlg {
		t.Fatalf("matched completion answered %s (%v)", got, err)
	}
	if again := post(); !strings.Contains(again, `"completion received for delegation `+dlg+`"`) && !strings.Contains(again, `"code":-31002`) {
		t.Errorf("the second posting answered %s", again)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mur run: %v\n%s", err, stderr.String())
	}
	noneLeft(t, cmd.Process.Pid)
	recs := records(t, r.RecordsDir)
	d := of[trace.Delegation](t, recs)
	if len(d) != 1 || d[0].Outcome != "ok" || d[0].Reason != nil {
		t.Fatalf("delegation records = %+v, want the one posted outcome", d)
	}
	if c := of[trace.TaskContinued](t, recs); len(c) != 1 || len(c[0].Delegations) != 1 {
		t.Errorf("task_continued = %+v", c)
	}
	if n := len(of[trace.TaskStart](t, recs)); n != 1 || len(of[trace.A2ATaskReceived](t, recs)) != 0 {
		t.Errorf("%d task_start, want only the launch task: a completion starts none", n)
	}
	if cont := continuation(t, r.RecordsDir, 1); !strings.Contains(cont, "\nstatus: ok\n") || !strings.Contains(cont, "\ndetail: posted by the test\n") {
		t.Errorf("continuation:\n%s", cont)
	}
}
