package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// askEnv copies examples/ask into a fresh directory (input.md INP-14).
func askEnv(t *testing.T) *runEnv {
	t.Helper()
	files := map[string]string{}
	for _, f := range []string{"murmur.yaml", "script.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "ask", f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
	}
	return newRunEnv(t, files)
}

// wireTask is the part of a Task these tests read.
type wireTask struct {
	ID        string `json:"id"`
	ContextID string `json:"contextId"`
	Status    struct {
		State string `json:"state"`
	} `json:"status"`
	Artifacts []struct {
		ArtifactID string `json:"artifactId"`
		Parts      []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"artifacts"`
}

func (w wireTask) artifact(id string) string {
	for _, a := range w.Artifacts {
		if a.ArtifactID == id && len(a.Parts) == 1 {
			return a.Parts[0].Text
		}
	}
	return ""
}

// rpcResponse is a JSON-RPC answer.
type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    []struct {
			Metadata map[string]string `json:"metadata"`
		} `json:"data"`
	} `json:"error"`
}

// post sends one JSON-RPC request to the door, as curl does.
func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func rpcCall(t *testing.T, url, body string) rpcResponse {
	t.Helper()
	resp := post(t, url, body)
	defer resp.Body.Close()
	var r rpcResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("decode answer to %s: %v", body, err)
	}
	return r
}

// sendTask decodes a SendMessage result's task.
func sendTask(t *testing.T, r rpcResponse) wireTask {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("SendMessage error %d %s", r.Error.Code, r.Error.Message)
	}
	var res struct {
		Task wireTask `json:"task"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	return res.Task
}

func startAskDoor(t *testing.T, e *runEnv, args ...string) (p *runProc, url, records string) {
	t.Helper()
	p = e.start(t, append([]string{"--capsule", ".", "--json"}, args...)...)
	var ready struct {
		URL        string `json:"url"`
		RecordsDir string `json:"records_dir"`
	}
	if err := json.Unmarshal([]byte(p.line(t)), &ready); err != nil || ready.URL == "" {
		t.Fatalf("readiness line: %v (stderr %q)", err, p.stderr.String())
	}
	return p, ready.URL, ready.RecordsDir
}

// TestAskExampleBlocking_INP14 is the done-when on the real binary:
// a door of examples/ask parks its task on a blocking SendMessage, which
// answers INPUT_REQUIRED with the question; GetTask, ListTasks and
// /metrics show it waiting (INP-13); a blocking SendMessage naming the task
// completes it with the reply; the session, single and exit, then ends 0.
// A second reply is TestAskExampleOneReply_INP6's: here the session ends
// with its task (TASK-7, SES-8), so no request after the answer is promised
// one.
func TestAskExampleBlocking_INP14(t *testing.T) {
	t.Parallel()
	e := askEnv(t)
	p, url, records := startAskDoor(t, e)
	parked := sendTask(t, rpcCall(t, url, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"ship 1.2?"}]}}}`))
	if parked.Status.State != "TASK_STATE_INPUT_REQUIRED" || parked.artifact("prompt") != "You asked me: ship 1.2?\nWhat should I answer?" {
		t.Fatalf("blocking SendMessage = %+v, want INPUT_REQUIRED with the prompt (METH-SM-4)", parked)
	}
	var got wireTask
	if r := rpcCall(t, url, `{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"`+parked.ID+`"}}`); json.Unmarshal(r.Result, &got) != nil ||
		got.Status.State != "TASK_STATE_INPUT_REQUIRED" || got.artifact("prompt") == "" {
		t.Errorf("GetTask = %s", r.Result)
	}
	var list struct {
		Tasks []wireTask `json:"tasks"`
	}
	if r := rpcCall(t, url, `{"jsonrpc":"2.0","id":3,"method":"ListTasks","params":{"status":"TASK_STATE_INPUT_REQUIRED"}}`); json.Unmarshal(r.Result, &list) != nil ||
		len(list.Tasks) != 1 || list.Tasks[0].ID != parked.ID {
		t.Errorf("ListTasks INPUT_REQUIRED = %s", r.Result)
	}
	mresp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	if !bytes.Contains(metrics, []byte(`mur_door_tasks{state="TASK_STATE_INPUT_REQUIRED"} 1`)) {
		t.Errorf("/metrics lacks the waiting task:\n%s", metrics)
	}
	if r := rpcCall(t, url, `{"jsonrpc":"2.0","id":4,"method":"SendMessage","params":{"message":{"messageId":"m2","role":"ROLE_USER","taskId":"`+parked.ID+`","contextId":"ctx_elsewhere","parts":[{"text":"no"}]}}}`); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("a reply in another context = %+v, want -32602", r)
	}
	done := sendTask(t, rpcCall(t, url, `{"jsonrpc":"2.0","id":5,"method":"SendMessage","params":{"message":{"messageId":"m3","role":"ROLE_USER","taskId":"`+parked.ID+`","parts":[{"text":"yes, ship it"}]}}}`))
	if done.Status.State != "TASK_STATE_COMPLETED" || done.artifact("response") != "The operator says: yes, ship it" {
		t.Errorf("blocking reply = %+v, want COMPLETED with the reply in the answer", done)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("mur run exited %d, want 0; stderr:\n%s", code, p.stderr.String())
	}
	recs := tracetest.Records(t, records)
	if got, want := strings.Join(tracetest.Types(recs), ","), "session_start,a2a_task_received,task_start,inference,input_request,input_reply,tool_call,inference,task_end,session_end"; got != want {
		t.Errorf("trace = %s\nwant    %s", got, want)
	}
	if rq := tracetest.OfType[trace.InputRequest](t, recs); len(rq) != 1 || rq[0].TimeoutSecs == nil || *rq[0].TimeoutSecs != 3600 {
		t.Errorf("input_request = %+v, want the example's timeout", rq)
	}
}

// TestAskExampleOneReply_INP6 is one reply per question on the real
// binary: a door of examples/ask kept serving (queue and sleep, as its
// README runs it) takes the reply that completes the task; a second reply
// naming it is -32004 naming COMPLETED (METH-SM-3's ended row) and changes
// nothing: the task keeps the first reply's answer and the trace records
// one reply. Under the example's own single and exit the session ends with
// its task (TASK-7, SES-8), so the door promises no answer after that one.
func TestAskExampleOneReply_INP6(t *testing.T) {
	t.Parallel()
	e := askEnv(t)
	p, url, records := startAskDoor(t, e, "--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
	parked := sendTask(t, rpcCall(t, url, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"ship 1.2?"}]}}}`))
	if parked.Status.State != "TASK_STATE_INPUT_REQUIRED" {
		t.Fatalf("blocking SendMessage = %+v, want INPUT_REQUIRED", parked)
	}
	done := sendTask(t, rpcCall(t, url, `{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"messageId":"m2","role":"ROLE_USER","taskId":"`+parked.ID+`","parts":[{"text":"yes"}]}}}`))
	if done.Status.State != "TASK_STATE_COMPLETED" || done.artifact("response") != "The operator says: yes" {
		t.Fatalf("blocking reply = %+v, want COMPLETED with the reply in the answer", done)
	}
	r := rpcCall(t, url, `{"jsonrpc":"2.0","id":3,"method":"SendMessage","params":{"message":{"messageId":"m3","role":"ROLE_USER","taskId":"`+parked.ID+`","parts":[{"text":"no, wait"}]}}}`)
	if r.Error == nil || r.Error.Code != -32004 || len(r.Error.Data) != 1 ||
		r.Error.Data[0].Metadata["taskId"] != parked.ID || r.Error.Data[0].Metadata["state"] != "TASK_STATE_COMPLETED" {
		t.Errorf("a second reply = %+v, want -32004 naming the task COMPLETED (INP-6)", r.Error)
	}
	var got wireTask
	if r := rpcCall(t, url, `{"jsonrpc":"2.0","id":4,"method":"GetTask","params":{"id":"`+parked.ID+`"}}`); json.Unmarshal(r.Result, &got) != nil ||
		got.Status.State != "TASK_STATE_COMPLETED" || got.artifact("response") != "The operator says: yes" {
		t.Errorf("GetTask after the second reply = %s, want the first reply's answer", r.Result)
	}
	stopConformer(t, p)
	recs := tracetest.Records(t, records)
	if got, want := strings.Join(tracetest.Types(recs), ","), "session_start,a2a_task_received,task_start,inference,input_request,input_reply,tool_call,inference,task_end,session_end"; got != want {
		t.Errorf("trace = %s\nwant    %s", got, want)
	}
	if rp := tracetest.OfType[trace.InputReply](t, recs); len(rp) != 1 || rp[0].MessageID != "m2" {
		t.Errorf("input_reply = %+v, want the first reply's only (INP-6)", rp)
	}
}

// sseEvents reads an SSE body's data lines as JSON-RPC results, naming each
// by its one key (task, statusUpdate:<state>, artifactUpdate:<id>).
func sseEvents(t *testing.T, body io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Result struct {
				Task         *wireTask `json:"task"`
				StatusUpdate *struct {
					Status struct {
						State string `json:"state"`
					} `json:"status"`
				} `json:"statusUpdate"`
				ArtifactUpdate *struct {
					Artifact struct {
						ArtifactID string `json:"artifactId"`
					} `json:"artifact"`
				} `json:"artifactUpdate"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %s: %v", data, err)
		}
		switch r := ev.Result; {
		case r.Task != nil:
			out = append(out, "task:"+r.Task.Status.State)
		case r.StatusUpdate != nil:
			out = append(out, "statusUpdate:"+r.StatusUpdate.Status.State)
		case r.ArtifactUpdate != nil:
			out = append(out, "artifactUpdate:"+r.ArtifactUpdate.Artifact.ArtifactID)
		}
	}
	return out
}

// TestAskExampleStreaming_INP14: SendStreamingMessage stops at
// INPUT_REQUIRED in SSE-3's order (the prompt artifact, then the status);
// a streamed reply opens WORKING and runs to COMPLETED (METH-SS-2).
func TestAskExampleStreaming_INP14(t *testing.T) {
	t.Parallel()
	e := askEnv(t)
	p, url, _ := startAskDoor(t, e)
	resp := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"stream?"}]}}}`)
	first := sseEvents(t, resp.Body)
	resp.Body.Close()
	if got := strings.Join(first, ","); !strings.HasPrefix(got, "task:TASK_STATE_SUBMITTED,") || !strings.HasSuffix(got, ",artifactUpdate:prompt,statusUpdate:TASK_STATE_INPUT_REQUIRED") {
		t.Fatalf("stream = %s, want it to end artifactUpdate:prompt, statusUpdate:INPUT_REQUIRED (SSE-3)", got)
	}
	var list struct {
		Tasks []wireTask `json:"tasks"`
	}
	if err := json.Unmarshal(rpcCall(t, url, `{"jsonrpc":"2.0","id":2,"method":"ListTasks","params":{}}`).Result, &list); err != nil || len(list.Tasks) != 1 {
		t.Fatalf("ListTasks = %+v, %v", list, err)
	}
	id := list.Tasks[0].ID
	resp = post(t, url, `{"jsonrpc":"2.0","id":3,"method":"SendStreamingMessage","params":{"message":{"messageId":"m2","role":"ROLE_USER","taskId":"`+id+`","parts":[{"text":"streamed yes"}]}}}`)
	second := sseEvents(t, resp.Body)
	resp.Body.Close()
	if got := strings.Join(second, ","); !strings.HasPrefix(got, "task:TASK_STATE_WORKING,") || !strings.HasSuffix(got, "artifactUpdate:response,statusUpdate:TASK_STATE_COMPLETED") {
		t.Errorf("reply stream = %s, want WORKING first and COMPLETED last (METH-SS-2)", got)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("mur run exited %d; stderr:\n%s", code, p.stderr.String())
	}
}
