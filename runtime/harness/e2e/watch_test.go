package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
)

// TestDoorWatch is PROC-20 on the door (door.md SSE-6, SSE-8): a harness
// task on stream/watch is working from its start, with no status per turn,
// one artifact frame per bridged call carrying the call's result and id,
// and none of the harness's own text ("I will echo.") before the answer;
// the connection-ack of a threaded process capsule says threaded.
func TestDoorWatch(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n  conversation: threaded\n", `{"runs":[{"steps":[
		{"tool":{"name":"echo","args":{"command":"hello there"},"text":"I will echo."}},
		{"tool":{"name":"echo","args":{"command":"and again"}}},
		{"answer":"DONE: echoed twice"}]}]}`)
	s := c.serve(t)
	task, err := s.send(t, "ctx-watch", "say hello")
	if err != nil || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("task = %+v, %v", task, err)
	}
	var ack string
	var seq, outputs, ids []string
frames:
	for f, err := range s.cl.Watch(context.Background(), 0) {
		if err != nil {
			t.Fatalf("stream/watch: %v", err)
		}
		if strings.Contains(string(f.Data), "I will echo.") {
			t.Errorf("the harness's own text reached stream/watch: %s %s", f.Event, f.Data)
		}
		switch f.Event {
		case a2a.FrameConnectionAck:
			ack = string(f.Data)
			continue
		case "status":
			var st struct {
				ID     string `json:"id"`
				Status struct {
					State    string `json:"state"`
					Response string `json:"response"`
				} `json:"status"`
			}
			if err := json.Unmarshal(f.Data, &st); err != nil || st.ID != string(task.ID) {
				t.Fatalf("status frame %s: %v", f.Data, err)
			}
			seq = append(seq, st.Status.State)
			if st.Status.State == "completed" {
				if st.Status.Response != "DONE: echoed twice" {
					t.Errorf("completed frame = %s", f.Data)
				}
				break frames
			}
			continue
		case "artifact":
			var a struct {
				Artifact struct {
					ToolName   string `json:"tool_name"`
					Content    string `json:"content"`
					ToolCallID string `json:"tool_call_id"`
				} `json:"artifact"`
			}
			if err := json.Unmarshal(f.Data, &a); err != nil || a.Artifact.ToolName != "echo" {
				t.Fatalf("artifact frame %s: %v", f.Data, err)
			}
			outputs = append(outputs, a.Artifact.Content)
			ids = append(ids, a.Artifact.ToolCallID)
		}
		seq = append(seq, f.Event)
	}
	if ack != `{"role":"observer","conversation_mode":"threaded"}` {
		t.Errorf("connection-ack = %s, want threaded", ack)
	}
	if got := strings.Join(seq, " "); got != "submitted working artifact artifact text completed" {
		t.Errorf("frames = %s", got)
	}
	if len(outputs) != 2 || !strings.Contains(outputs[0], "hello there") || !strings.Contains(outputs[1], "and again") ||
		ids[0] != "toolu_fake_1" || ids[1] == ids[0] {
		t.Errorf("artifact frames: contents %q, tool_call_ids %q", outputs, ids)
	}
}
