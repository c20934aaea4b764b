package door

import (
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tasktable"
)

func msgBody(message string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":` + message + `}}`
}

// TestSendValidation_METHSM2 pins METH-SM-2's refusals, in its order; none
// starts or records a task.
func TestSendValidation_METHSM2(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	ok := `"messageId":"m","role":"ROLE_USER"`
	runRPCCases(t, td, "", "rpc_send_validation", []rpcCase{
		{"no params", `{"jsonrpc":"2.0","id":1,"method":"SendMessage"}`, nil},
		{"bare message as params", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}`, nil},
		{"message not an object", msgBody(`"hi"`), nil},
		{"message null", msgBody(`null`), nil},
		{"no messageId", msgBody(`{"role":"ROLE_USER","parts":[{"text":"x"}]}`), nil},
		{"empty messageId", msgBody(`{"messageId":"","role":"ROLE_USER","parts":[{"text":"x"}]}`), nil},
		{"messageId number", msgBody(`{"messageId":5,"role":"ROLE_USER","parts":[{"text":"x"}]}`), nil},
		{"role user", msgBody(`{"messageId":"m","role":"user","parts":[{"text":"x"}]}`), nil},
		{"role agent", msgBody(`{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"x"}]}`), nil},
		{"no parts", msgBody(`{` + ok + `}`), nil},
		{"empty parts", msgBody(`{` + ok + `,"parts":[]}`), nil},
		{"parts object", msgBody(`{` + ok + `,"parts":{"text":"x"}}`), nil},
		{"part not an object", msgBody(`{` + ok + `,"parts":["x"]}`), nil},
		{"part with none", msgBody(`{` + ok + `,"parts":[{"mediaType":"text/plain"}]}`), nil},
		{"part with two", msgBody(`{` + ok + `,"parts":[{"text":"x","data":{}}]}`), nil},
		{"data null counts", msgBody(`{` + ok + `,"parts":[{"text":"x","data":null}]}`), nil},
		{"text not a string", msgBody(`{` + ok + `,"parts":[{"text":7}]}`), nil},
		{"mediaType not a string", msgBody(`{` + ok + `,"parts":[{"text":"x","mediaType":1}]}`), nil},
		{"filename not a string", msgBody(`{` + ok + `,"parts":[{"data":{},"filename":[]}]}`), nil},
		{"taskId not a string", msgBody(`{` + ok + `,"parts":[{"text":"x"}],"taskId":1}`), nil},
		{"contextId not a string", msgBody(`{` + ok + `,"parts":[{"text":"x"}],"contextId":{}}`), nil},
		{"referenceTaskIds empty string", msgBody(`{` + ok + `,"parts":[{"text":"x"}],"referenceTaskIds":[""]}`), nil},
		{"referenceTaskIds not strings", msgBody(`{` + ok + `,"parts":[{"text":"x"}],"referenceTaskIds":[1]}`), nil},
		{"referenceTaskIds 17", msgBody(`{` + ok + `,"parts":[{"text":"x"}],"referenceTaskIds":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q"]}`), nil},
		{"raw part", msgBody(`{` + ok + `,"parts":[{"text":"x"},{"raw":"AAAA","mediaType":"image/png"}]}`), nil},
		{"url part", msgBody(`{` + ok + `,"parts":[{"url":"http://x"}]}`), nil},
		{"text error before raw", msgBody(`{` + ok + `,"parts":[{"raw":"AAAA"},{"text":1}]}`), nil},
		{"historyLength negative", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{` + ok + `,"parts":[{"text":"x"}]},"configuration":{"historyLength":-1}}}`, nil},
		{"returnImmediately string", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{` + ok + `,"parts":[{"text":"x"}]},"configuration":{"returnImmediately":"yes"}}}`, nil},
		{"unknown task", msgBody(`{` + ok + `,"parts":[{"text":"x"}],"taskId":"tsk_nope"}`), nil},
	})
	if c := td.reg.Counts(); len(c) != 0 {
		t.Errorf("refused sends stored tasks: %v", c)
	}
}

// TestSendReturnImmediately_METHSM4 answers at once with SUBMITTED; the
// task completes later, and GetTask reads the response (METH-GT-1).
func TestSendReturnImmediately_METHSM4(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	tk := td.call("", sendBody("forty-two", `,"contextId":"ctx-mine","referenceTaskIds":["a","a","b"]`)).task(t, true)
	if tk.Status.State != a2a.TaskStateSubmitted || tk.ContextID != "ctx-mine" || !a2a.ValidID(string(tk.ID), "tsk_") {
		t.Fatalf("task = %+v, want SUBMITTED in ctx-mine", tk)
	}
	ex := startExecutor(td.reg)
	defer ex.Stop()
	run := <-ex.Runs()
	if got := run.Message().ReferenceTaskIDs; len(got) != 2 {
		t.Errorf("referenceTaskIds handed over = %v, want [a b]", got)
	}
	if p := run.Provenance(); p.Origin != a2a.OriginEvent || p.Trust != a2a.TrustUntrusted || p.Source != "a2a" {
		t.Errorf("provenance = %+v, want event/untrusted/a2a (PEER-4)", p)
	}
	body := `{"jsonrpc":"2.0","id":"g","method":"GetTask","params":{"id":"` + string(tk.ID) + `","historyLength":1}}`
	for {
		got := td.call("", body).task(t, false)
		if got.Status.State != a2a.TaskStateCompleted {
			continue // the executor has not finished yet; GetTask reads at once
		}
		if a := got.Artifact(a2a.ArtifactResponse); a == nil || a2a.Text(a.Parts) != "forty-two" {
			t.Errorf("response artifact = %+v", got.Artifacts)
		}
		if len(got.History) != 1 || a2a.Text(got.History[0].Parts) != "forty-two" {
			t.Errorf("history = %+v, want the one message", got.History)
		}
		break
	}
}

// TestSendBlocking_METHSM4 holds the answer until the task is terminal or
// INPUT_REQUIRED; a reply is delivered and answered as it then stands.
func TestSendBlocking_METHSM4(t *testing.T) {
	td := startDoor(t, opts{})
	blocking := func(text, extra string) string {
		return strings.Replace(sendBody(text, extra), `,"configuration":{"returnImmediately":true}`, "", 1)
	}
	done := td.call("", blocking("hello", "")).task(t, true)
	if done.Status.State != a2a.TaskStateCompleted || a2a.Text(done.Artifact("response").Parts) != "hello" {
		t.Fatalf("blocking send = %+v, want COMPLETED with response hello", done)
	}
	failed := td.call("", blocking("fail:q gave no answer", "")).task(t, true)
	if failed.Status.State != a2a.TaskStateFailed || a2a.Text(failed.Status.Message.Parts) != "q gave no answer" ||
		failed.Status.Message.MessageID != "msg_"+string(failed.ID)+"_status" {
		t.Errorf("failed send = %+v", failed)
	}
	asked := td.call("", blocking("ask:which file?", "")).task(t, true)
	if asked.Status.State != a2a.TaskStateInputRequired || a2a.Text(asked.Artifact("prompt").Parts) != "which file?" {
		t.Fatalf("asking send = %+v, want INPUT_REQUIRED with prompt", asked)
	}
	// A reply with another contextId is -32602; the right one completes it.
	wrong := td.call("", blocking("README.md", `,"taskId":"`+string(asked.ID)+`","contextId":"ctx-other"`))
	if wrong.Error == nil || wrong.Error.Code != -32602 {
		t.Errorf("reply in another context = %+v, want -32602", wrong.Error)
	}
	final := td.call("", blocking("README.md", `,"taskId":"`+string(asked.ID)+`"`)).task(t, true)
	if final.ID != asked.ID || final.Status.State != a2a.TaskStateCompleted || a2a.Text(final.Artifact("response").Parts) != "README.md" {
		t.Errorf("reply = %+v, want the same task COMPLETED", final)
	}
	// A message naming an ended task is -32004 naming its state (METH-SM-3).
	ended := td.call("", blocking("again", `,"taskId":"`+string(asked.ID)+`"`))
	if ended.Error == nil || ended.Error.Code != -32004 || ended.Error.Data[0].Metadata["state"] != "TASK_STATE_COMPLETED" {
		t.Errorf("send to an ended task = %+v, want -32004 COMPLETED", ended.Error)
	}
}

// TestSendBusy_TASK5 answers a task the door has no room for as REJECTED
// busy, at once, not stored.
func TestSendBusy_TASK5(t *testing.T) {
	td := startDoor(t, opts{acceptance: tasktable.ModeSingle, noExecutor: true})
	first := td.call("", sendBody("one", "")).task(t, true)
	busy := td.call("", strings.Replace(sendBody("two", ""), `"returnImmediately":true`, `"returnImmediately":false`, 1)).task(t, true)
	if busy.Status.State != a2a.TaskStateRejected || a2a.Text(busy.Status.Message.Parts) != a2a.StatusBusy {
		t.Fatalf("second task = %+v, want REJECTED busy", busy)
	}
	r := td.call("", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"`+string(busy.ID)+`"}}`)
	if r.Error == nil || r.Error.Code != -32001 {
		t.Errorf("GetTask of the busy task = %+v, want -32001", r.Error)
	}
	if c := td.reg.Counts(); c[a2a.TaskStateSubmitted] != 1 || len(c) != 1 || first.ID == busy.ID {
		t.Errorf("stored = %v, want only the first", c)
	}
}

// TestSendPeerTrust_PEER4 maps the murmur headers to provenance.
func TestSendPeerTrust_PEER4(t *testing.T) {
	td := startDoor(t, opts{peerTasks: true, noExecutor: true})
	cases := []struct {
		hdr    []string
		origin a2a.Origin
		trust  a2a.Trust
	}{
		{[]string{"x-murmur-task-origin: peer", "x-murmur-task-trust:  Trusted"}, a2a.OriginPeer, a2a.TrustTrusted},
		{[]string{"x-murmur-task-origin: peer", "x-murmur-task-trust: yes"}, a2a.OriginPeer, a2a.TrustUntrusted},
		{[]string{"x-murmur-task-origin: user", "x-murmur-task-trust: trusted"}, a2a.OriginEvent, a2a.TrustUntrusted},
		{nil, a2a.OriginEvent, a2a.TrustUntrusted},
	}
	ex := startExecutor(td.reg)
	defer ex.Stop()
	for _, c := range cases {
		td.call("", sendBody("x", ""), append(c.hdr, "traceparent: "+validParent)...).task(t, true)
		run := <-ex.Runs()
		if p := run.Provenance(); p.Origin != c.origin || p.Trust != c.trust || p.TraceParent != validParent {
			t.Errorf("headers %v: provenance = %+v, want %s/%s", c.hdr, p, c.origin, c.trust)
		}
	}
}

const validParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// TestSendTraceContext_OTEL1: a valid traceparent and its tracestate reach
// the task's provenance; one that is not W3C is ignored, with its tracestate.
func TestSendTraceContext_OTEL1(t *testing.T) {
	td := startDoor(t, opts{peerTasks: true, noExecutor: true})
	ex := startExecutor(td.reg)
	defer ex.Stop()
	cases := []struct {
		hdr           []string
		parent, state string
	}{
		{[]string{"traceparent: " + validParent, "tracestate: mur=1,a=b"}, validParent, "mur=1,a=b"},
		{[]string{"traceparent: " + validParent}, validParent, ""},
		{[]string{"traceparent: 00-abc-def-01", "tracestate: mur=1"}, "", ""},
		{[]string{"traceparent: 00-00000000000000000000000000000000-00f067aa0ba902b7-01"}, "", ""},
		{[]string{"tracestate: mur=1"}, "", ""},
	}
	for _, c := range cases {
		td.call("", sendBody("x", ""), c.hdr...).task(t, true)
		run := <-ex.Runs()
		if p := run.Provenance(); p.TraceParent != c.parent || p.TraceState != c.state {
			t.Errorf("headers %v: trace context = %q, %q; want %q, %q", c.hdr, p.TraceParent, p.TraceState, c.parent, c.state)
		}
	}
}
