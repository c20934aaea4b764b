package capsule_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/internal/capsuletest"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// parked follows a door's stream/watch until a task asks (input-required)
// and returns its id.
func parked(t *testing.T, door *client.Client) a2a.TaskID {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for f, err := range door.Watch(ctx, 0) {
		if err != nil {
			t.Fatalf("stream/watch: %v", err)
		}
		if f.Event != a2a.FrameStatus {
			continue
		}
		var st struct {
			ID     a2a.TaskID `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		}
		if err := json.Unmarshal(f.Data, &st); err != nil {
			t.Fatal(err)
		}
		if st.Status.State == "input-required" {
			return st.ID
		}
	}
	t.Fatal("stream/watch ended before a task asked")
	return ""
}

// TestMemberAsksItsOperator: a member called by another asks with
// request-input; the question parks its task at its own door while the
// caller's call stays outstanding, and the reply there lets it answer, which
// the caller delivers (INP-4, INP-11).
func TestMemberAsksItsOperator(t *testing.T) {
	t.Parallel()
	world := newWorld(t)
	frm := capsuletest.NewFormation(t)
	wk := world.start(t, spec{name: "worker", extra: peerExtra + authenticated + "artifacts:\n  - name: murmur-tool-request-input\n    version: \"1.0.0\"\n", script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: murmur-tool-request-input, input: {prompt: "may I {{task}}?"}}]
      - text: "worker: {{tool_result}}"
`}, nil, frm.Member(t, "worker"))
	ld := world.start(t, lead("worker"), ptr("deploy"), frm.Member(t, "lead", capsuletest.Callee{Name: "worker", Capsule: wk}))
	door := wk.Client(t)
	id := parked(t, door)
	got, err := door.GetTask(t.Context(), a2a.GetTaskRequest{ID: id})
	if err != nil || got.Status.State != a2a.TaskStateInputRequired || got.Artifact(a2a.ArtifactPrompt) == nil ||
		a2a.Text(got.Artifact(a2a.ArtifactPrompt).Parts) != "may I deploy?" {
		t.Fatalf("the worker's task = %+v, %v; want it asking \"may I deploy?\"", got, err)
	}
	resp, err := door.SendMessage(t.Context(), a2a.SendMessageRequest{
		Message:       a2a.Message{MessageID: "m-reply", Role: a2a.RoleUser, TaskID: id, Parts: []a2a.Part{a2a.TextPart("yes, go ahead")}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("the reply = %+v, %v; want WORKING", resp, err)
	}
	if res := ld.Wait(t); res.Err != nil || res.ExitStatus != "ok" {
		t.Fatalf("lead ended %+v\nstderr:\n%s", res, ld.Stderr)
	}
	if got := resultText(t, ld.RecordsDir); got != "lead: worker: yes, go ahead" {
		t.Errorf("lead result = %q", got)
	}
	if rp := tracetest.OfType[trace.InputReply](t, tracetest.Records(t, wk.RecordsDir)); len(rp) != 1 || rp[0].MessageID != "m-reply" || rp[0].CallerMember != "" {
		t.Errorf("the worker's input_reply = %+v, want the operator's (the runtime never replies)", rp)
	}
	if mc := tracetest.OfType[trace.MemberCall](t, tracetest.Records(t, ld.RecordsDir)); len(mc) != 1 || mc[0].Status != "completed" || mc[0].MemberTaskID != string(id) {
		t.Errorf("the lead's member_call = %+v", mc)
	}
}
