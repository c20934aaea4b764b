package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestWatchFrames_SSE8 reads the stream/watch frames example 8a leaves: the
// bash result as an artifact frame with every key, and the final text frame.
func TestWatchFrames_SSE8(t *testing.T) {
	dir := writeCapsule(t, "name: hello-shell\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		"script_version: 1\nrules:\n  - match: {contains: list}\n    turns:\n      - tool_calls: [{name: bash, input: {command: \"echo hi\"}}]\n      - text: \"Files:\\n{{tool_result}}\"\n")
	s := startIn(t, prepareIn(t, dir, ptr("list the files"), nil), nil, nil)
	s.Run()
	w := s.Registry().Watch(0)
	defer w.Close()
	var artifact, text string
	for {
		f, err := w.Next(context.Background())
		if err != nil {
			break
		}
		switch f.Event {
		case "artifact":
			artifact = string(f.Data)
		case "text":
			text = string(f.Data)
		}
		if f.Event == "capsule-closed" {
			break
		}
	}
	var a struct {
		ID       string                     `json:"id"`
		Artifact map[string]json.RawMessage `json:"artifact"`
	}
	if err := json.Unmarshal([]byte(artifact), &a); err != nil {
		t.Fatalf("artifact frame %q: %v", artifact, err)
	}
	var keys []string
	dec := json.NewDecoder(strings.NewReader(artifact[strings.Index(artifact, `"artifact":`)+len(`"artifact":`):]))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if got := strings.Join(keys, ","); got != "tool_name,content,fence_source,tool_call_id,is_error,duration_ms,exit_code,truncated" {
		t.Errorf("artifact keys = %s", got)
	}
	var content string
	json.Unmarshal(a.Artifact["content"], &content)
	if string(a.Artifact["fence_source"]) != `"tool:bash"` || string(a.Artifact["exit_code"]) != "0" || string(a.Artifact["is_error"]) != "false" ||
		!strings.HasPrefix(content, "<untrusted-content source=tool:bash>\n$ echo hi\n") {
		t.Errorf("artifact frame = %s", artifact)
	}
	if !strings.HasSuffix(text, `"final":true}`) || !strings.Contains(text, `"text":"Files:\n$ echo hi`) {
		t.Errorf("text frame = %s", text)
	}
}
