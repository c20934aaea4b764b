package member

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tool"
)

func (f *fixture) endWithout(t *testing.T, input string) tool.Result {
	t.Helper()
	return f.ewa.Call(t.Context(), f.cc(), json.RawMessage(input))
}

// TestEWARefusals is EWA-3: every refusal's exact text, in order — each
// case also meets the conditions of the ones after it.
func TestEWARefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		door := &fakeDoor{send: replies(taken("tsk_w")), get: replies(reply{task: completed("tsk_w", "done")})}
		check := func(name string, res tool.Result, want string) {
			t.Helper()
			if !res.Refused || res.Data != want {
				t.Errorf("%s: %+v, want refusal %q", name, res, want)
			}
		}
		bare := &ewaTool{cfg: &Config{}}
		check("not a member", bare.Call(t.Context(), nil, json.RawMessage(`{}`)),
			"'end-without-answer' is answered only for a formation member that roster.yaml lets call another; this session is not one")
		entry := newFixture(t, door, "", 0)
		check("no task", entry.ewa.Call(t.Context(), &tool.CallContext{}, json.RawMessage(`{}`)),
			"'end-without-answer' is answered only while a task runs; this session is running none")
		entry.callMember(t, "worker", "x")
		check("no member sent it", entry.endWithout(t, `{}`),
			"'end-without-answer' ends only a task another formation member sent; no formation member sent this one. Reply in text, saying plainly which part has no answer.")
		entry.set(t).Abandon()

		f := newFixture(t, door, "lead", 0)
		id := callID(t, f.callMember(t, "worker", "x"))
		check("call out", f.endWithout(t, `{"reason":" "}`),
			"Call "+id+" to worker is still out; its answer arrives after you end your turn. Call end-without-answer only when no call is left to wait for.")
		waitOut(t, f.set(t), 100*time.Millisecond)
		check("answer undelivered", f.endWithout(t, `{"reason":" "}`),
			"Call "+id+" to worker is still out; its answer arrives after you end your turn. Call end-without-answer only when no call is left to wait for.")
		f.set(t).Deliver()
		for _, in := range []string{`{"reason":"  "}`, `{}`, `{"reason":7}`} {
			check("no reason "+in, f.endWithout(t, in), "'end-without-answer' needs a reason: say in a sentence why you have no answer.")
		}
		if res := f.endWithout(t, `{"reason":"worker gave me nothing"}`); res.Refused {
			t.Fatalf("accepted call refused: %s", res.Data)
		}
		check("already", f.endWithout(t, `{"reason":"again"}`), "This task is already ending without an answer.")
		if r, ok := f.ts.NoAnswer(); !ok || r != "worker gave me nothing" {
			t.Errorf("NoAnswer = %q, %v; the second call changed it or the first did not set it", r, ok)
		}
		f.set(t).Abandon()
	})
}

// TestEWAAccepted is EWA-2: passed, summary, data {"caller","status"} with
// keys sorted, and the note naming the caller.
func TestEWAAccepted(t *testing.T) {
	f := newFixture(t, &fakeDoor{}, "lead", 0)
	res := f.endWithout(t, `{"reason":"coder gave no answer"}`)
	if res.Status != tool.Passed || res.Refused || res.Summary != "Ending task without an answer" {
		t.Errorf("result = %+v", res)
	}
	content, _ := res.Content(tool.NameEndWithoutAnswer)
	want := "<untrusted-content source=tool:end-without-answer>\n" + `{"caller":"lead","status":"ending"}` + "\n</untrusted-content>\n" +
		"[end-without-answer] This task ends without an answer once this turn's tool calls finish, and lead is told you gave none."
	if content != want {
		t.Errorf("content =\n%s\nwant\n%s", content, want)
	}
	if r, ok := f.ts.NoAnswer(); !ok || r != "coder gave no answer" {
		t.Errorf("NoAnswer = %q, %v", r, ok)
	}
	if n := len(f.door.requests(a2a.MethodSendMessage)); n != 0 {
		t.Errorf("end-without-answer sent %d requests", n)
	}
}
