package member

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/formation"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// callID returns the call id in a result's data.
func callID(t *testing.T, res tool.Result) string {
	t.Helper()
	var d map[string]string
	if err := json.Unmarshal([]byte(res.Data), &d); err != nil {
		t.Fatalf("result data %q: %v", res.Data, err)
	}
	return d["call_id"]
}

// TestCallStartedSend is CALL-3, CALL-4, CALL-7 and CALL-8 for a held call:
// one SendMessage with msg_<call_id>, one text part, returnImmediately,
// A2A-Version, the member token, origin peer and the task's trust; the
// started result, its summary, data and note; member_call_start.
func TestCallStartedSend(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		door := &fakeDoor{send: func(int) reply { return taken("tsk_w1") }, get: func(int) reply { return reply{task: completed("tsk_w1", "done")} }}
		f := newFixture(t, door, "", 0)
		res := f.callMember(t, "worker", "write the tests")
		id := callID(t, res)
		if !strings.HasPrefix(id, "mcl_") || len(id) != 36 || strings.Trim(id[4:], "0123456789abcdef") != "" {
			t.Errorf("call id = %q, want mcl_ + 32 lowercase hex", id)
		}
		if res.Status != tool.Passed || res.Refused || res.Summary != "Called worker: started" {
			t.Errorf("result = %+v, want passed, summary Called worker: started", res)
		}
		if want := `{"call_id":"` + id + `","member":"worker","status":"started","task_id":"tsk_w1"}`; res.Data != want {
			t.Errorf("data = %s, want %s", res.Data, want)
		}
		content, _ := res.Content(tool.NameCallMember)
		want := "<untrusted-content source=tool:call-member>\n" + res.Data + "\n</untrusted-content>\n" +
			"[call-member] worker is now working on call " + id + ". Its answer is not in this result and no tool fetches it: the runtime adds it to this conversation after you end your turn. Unless you still have work to hand to a different member, end your turn now by replying without calling a tool. Calling worker again before its answer arrives is refused."
		if content != want {
			t.Errorf("content =\n%s\nwant\n%s", content, want)
		}
		sends := door.requests(a2a.MethodSendMessage)
		if len(sends) != 1 {
			t.Fatalf("%d SendMessage requests, want 1", len(sends))
		}
		h := sends[0].header
		for k, v := range map[string]string{"A2a-Version": "1.0", "Authorization": "Bearer tok-member", "X-Murmur-Task-Origin": "peer", "X-Murmur-Task-Trust": "trusted"} {
			if got := h.Get(k); got != v {
				t.Errorf("header %s = %q, want %q", k, got, v)
			}
		}
		var p a2a.SendMessageRequest
		if err := json.Unmarshal(sends[0].params, &p); err != nil {
			t.Fatal(err)
		}
		if p.Message.MessageID != "msg_"+id || len(p.Message.Parts) != 1 || a2a.Text(p.Message.Parts) != "write the tests" ||
			p.Configuration == nil || !p.Configuration.ReturnImmediately || p.Message.Role != a2a.RoleUser {
			t.Errorf("SendMessage params = %s, want msg_%s, one text part, returnImmediately", sends[0].params, id)
		}
		if len(res.Records) != 1 || rec[trace.MemberCallStart](t, res.Records[0]).MemberTaskID != "tsk_w1" {
			t.Errorf("records = %+v, want one member_call_start for tsk_w1", res.Records)
		}
		f.set(t).Abandon()
	})
}

// TestCallRefusals is CALL-2 and TOOL-11: each refusal's exact text,
// nothing sent, no member-call record; calls to different members never
// refuse each other.
func TestCallRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		door := &fakeDoor{send: func(int) reply { return taken("tsk_w") }, get: func(n int) reply {
			return reply{task: completed("tsk_w", "ok")}
		}}
		f := newFixture(t, door, "lead", 0)
		check := func(name string, res tool.Result, want string) {
			t.Helper()
			if !res.Refused || res.Data != want || len(res.Records) != 0 {
				t.Errorf("%s: result = %+v, want refusal %q", name, res, want)
			}
			if c, _ := res.Content(tool.NameCallMember); c != want {
				t.Errorf("%s: content %q is not the bare refusal", name, c)
			}
		}
		check("no task", f.call.Call(t.Context(), &tool.CallContext{}, json.RawMessage(`{"member":"worker","task":"x"}`)),
			"'call-member' is answered only while a task runs; this session is running none")
		check("not a callee", f.callMember(t, "coder", "x"), "'coder' is not a member this capsule may call; it may call: worker, critic")
		check("no member", f.call.Call(t.Context(), f.cc(), json.RawMessage(`{"task":"x"}`)), "'call-member' needs member")
		check("no task text", f.call.Call(t.Context(), f.cc(), json.RawMessage(`{"member":"worker","task":3}`)), "'call-member' needs task")
		if n := len(door.requests(a2a.MethodSendMessage)); n != 0 {
			t.Fatalf("refusals sent %d requests", n)
		}
		first := callID(t, f.callMember(t, "worker", "a"))
		check("not answered", f.callMember(t, "worker", "b"),
			"worker has not yet answered call "+first+" from this task, so nothing was sent. Its answer reaches you only after you end your turn: end your turn now by replying without calling a tool. Once that answer has arrived you may call worker again with new work.")
		if res := f.callMember(t, "critic", "c"); res.Refused {
			t.Errorf("a call to critic was refused by the call to worker: %s", res.Data)
		}
		time.Sleep(time.Second) // fake time: the 500 ms polls read both answers
		synctest.Wait()
		check("answered", f.callMember(t, "worker", "d"),
			"worker has already answered call "+first+", so nothing was sent. The answer reaches you as soon as you end your turn: end your turn now by replying without calling a tool.")
		if n := len(door.requests(a2a.MethodSendMessage)); n != 2 {
			t.Errorf("%d SendMessage requests, want 2 (worker, critic)", n)
		}
		d := f.set(t).Deliver()
		if len(d.IDs) != 2 {
			t.Fatalf("delivered %v, want two calls", d.IDs)
		}
		if res := f.callMember(t, "worker", "e"); res.Refused {
			t.Errorf("a call after delivery was refused: %s", res.Data)
		}
		if !f.ts.EndWithoutAnswer("no") {
			t.Fatal("EndWithoutAnswer refused")
		}
		check("ending", f.callMember(t, "critic", "f"), "'call-member' makes no call from a task that is ending without an answer.")
		f.set(t).Abandon()
	})
}

// TestCallEndsInToolCall is CALL-6, CALL-7 and CHAN-5: calls that end in
// their tool call, each with its output, summary, note and member_call.
func TestCallEndsInToolCall(t *testing.T) {
	cases := []struct {
		name, status, output string
		send                 reply
		dir                  directory
		caller               string
	}{
		{name: "rejected closing", status: "rejected", output: "worker did not take the task: the session is closing",
			send: reply{task: task("tsk_r", a2a.TaskStateRejected, "task rejected: the session is closing")}},
		{name: "rejected silent", status: "rejected", output: "worker did not take the task",
			send: reply{task: task("tsk_r", a2a.TaskStateRejected, "")}},
		{name: "json-rpc error", status: "failed", output: "worker's door refused the task with JSON-RPC error -32602: SendMessage requires a message",
			send: reply{rpcCode: -32602, rpcMsg: "SendMessage requires a message"}},
		{name: "http refusal", status: "failed", output: "worker's door answered HTTP 403: this capsule does not accept tasks from peer capsules",
			send: reply{status: 403, body: `{"error":"peer_not_accepted","message":"this capsule does not accept tasks from peer capsules"}`}},
		{name: "other terminal", status: "failed", output: "worker answered the task TASK_STATE_FAILED: error: boom",
			send: reply{task: task("tsk_f", a2a.TaskStateFailed, "error: boom")}},
		{name: "no answer", status: "failed", output: "worker's door could not be reached: connection refused",
			send: reply{noAnswer: true}, caller: "lead"},
		{name: "address", status: "failed", output: "worker's door address did not arrive within 10s",
			dir: directory{lookup: func(context.Context, string) (formation.Callee, error) {
				return formation.Callee{}, &formation.AddressError{Member: "worker", Wait: 10 * time.Second}
			}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				door := &fakeDoor{send: func(int) reply { return c.send }}
				f := newFixture(t, door, c.caller, 0)
				if c.dir.lookup != nil {
					impls, _ := Tools(Config{Callees: []string{"worker"}, Directory: c.dir, Allow: allowLocalhost(t)})
					f.call = impls[tool.NameCallMember]
				}
				res := f.callMember(t, "worker", "x")
				id := callID(t, res)
				if res.Status != tool.Failed || res.Refused || res.Summary != "Called worker: "+c.status {
					t.Errorf("result = %+v, want failed, summary Called worker: %s", res, c.status)
				}
				if want := `{"call_id":"` + id + `","member":"worker","output":"` + c.output + `","status":"` + c.status + `"}`; res.Data != want {
					t.Errorf("data = %s\nwant %s", res.Data, want)
				}
				note := "[call-member] Call " + id + " to worker ended " + c.status + ", with no answer from worker. Do not present an answer of your own as worker's."
				if c.caller != "" {
					note += " If you have no answer to give without worker, call end-without-answer with the reason: the runtime then tells lead plainly that you gave none."
				}
				if len(res.Notes) != 1 || res.Notes[0] != note {
					t.Errorf("notes = %q\nwant %q", res.Notes, note)
				}
				last := rec[trace.MemberCall](t, res.Records[len(res.Records)-1])
				if last.Status != c.status || last.Output != c.output || !last.Delivered {
					t.Errorf("member_call = %+v", last)
				}
				if last.MemberTaskID != "" {
					t.Errorf("member_call of a call never held carries member_task_id: %v", last)
				}
				if s := f.set(t); s.Outstanding() != 0 || s.Ready() {
					t.Errorf("a call ended in its tool call is outstanding or ready")
				}
				f.set(t).Abandon()
			})
		})
	}
}

// TestCallEgress is CALL-6: an allow list that does not reach the door
// fails the call with nothing sent.
func TestCallEgress(t *testing.T) {
	door := &fakeDoor{send: func(int) reply { return taken("tsk_x") }}
	impls, err := Tools(Config{Callees: []string{"worker"}, Directory: addresses()})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, door, "", 0)
	f.call = impls[tool.NameCallMember]
	res := f.callMember(t, "worker", "x")
	want := `'worker' could not be called: this capsule's capabilities.network.allow does not reach its door. A formation serves each member's door on loopback http at a port chosen at launch; declare the bare host "localhost", which matches every port`
	var d map[string]string
	_ = json.Unmarshal([]byte(res.Data), &d)
	if res.Status != tool.Failed || d["output"] != want || d["status"] != "failed" {
		t.Errorf("result = %+v, want failed with %q", res, want)
	}
	if n := len(door.requests(a2a.MethodSendMessage)); n != 0 {
		t.Errorf("sent %d requests past the egress check", n)
	}
	f.set(t).Abandon()
}

// TestToolsConfig checks New-style validation of Tools.
func TestToolsConfig(t *testing.T) {
	if _, err := Tools(Config{Directory: addresses()}); err == nil {
		t.Error("Tools with no callees: no error")
	}
	if _, err := Tools(Config{Callees: []string{"w"}}); err == nil {
		t.Error("Tools with no directory: no error")
	}
	impls, err := Tools(Config{Callees: []string{"worker", "critic"}, Directory: addresses()})
	if err != nil {
		t.Fatal(err)
	}
	spec := impls[tool.NameCallMember].Spec()
	if want := `{"type":"object","properties":{"member":{"type":"string","enum":["worker","critic"]},"task":{"type":"string"}},"required":["member","task"]}`; string(spec.InputSchema) != want {
		t.Errorf("call-member schema = %s\nwant %s", spec.InputSchema, want)
	}
	spec = impls[tool.NameEndWithoutAnswer].Spec()
	if want := `{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"]}`; string(spec.InputSchema) != want {
		t.Errorf("end-without-answer schema = %s\nwant %s", spec.InputSchema, want)
	}
}
