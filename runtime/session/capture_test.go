package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// keys returns a trace line's keys in their order.
func keys(t *testing.T, raw string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(out, ",")
}

// TestToolCallOutputByCapture_TRACE5: tool_call carries output under
// trace.capture: content only; its other fields keep §6's order.
func TestToolCallOutputByCapture_TRACE5(t *testing.T) {
	const envelope = "event_type,event_id,parent_id,session_id,timestamp,"
	for _, c := range []struct{ capture, want string }{
		{"none", "turn,task_id,tool_name,tool_call_id,input,input_bytes,output_bytes,duration_ms,status,summary"},
		{"meta", "turn,task_id,tool_name,tool_call_id,input,input_bytes,output_bytes,duration_ms,status,summary"},
		{"content", "turn,task_id,tool_name,tool_call_id,input,input_bytes,output,output_bytes,duration_ms,status,summary"},
	} {
		t.Run(c.capture, func(t *testing.T) {
			dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "capabilities:\n  shell:\n    allow: [bash]\ntrace:\n  capture: "+c.capture+"\n"), `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo hi"}}]
      - text: done
`)
			s := startIn(t, prepareIn(t, dir, ptr("x"), nil), nil, nil)
			if res := s.Run(); res.ExitStatus != StatusOK {
				t.Fatalf("Run = %+v", res)
			}
			recs := readTrace(t, s)
			tc, raw := of[trace.ToolCall](t, recs), lines[trace.ToolCall](recs)
			if len(tc) != 1 {
				t.Fatalf("tool_call records = %d, want 1", len(tc))
			}
			if got := keys(t, string(raw[0].Raw)); got != envelope+c.want {
				t.Errorf("tool_call keys =\n%s\nwant\n%s", got, envelope+c.want)
			}
			if out := tc[0].Output; c.capture == "content" && (out == nil || !strings.Contains(*out, "hi")) {
				t.Errorf("tool_call = %s, want the result as output", raw[0].Raw)
			}
		})
	}
}
