package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/conformance"
)

// examples/tck answers the A2A TCK's scenarios by messageId prefix through a
// real `mur run` door, and the door passes `mur conformance` over both
// bindings with 0 failed (docs/scripted.md message_id_prefix).
func TestTCKExample(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for _, f := range []string{"murmur.yaml", "script.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "tck", f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
	}
	e := newRunEnv(t, files)
	p := e.start(t, "--capsule", ".", "--json")
	var ready struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal([]byte(p.line(t)), &ready); err != nil || ready.URL == "" {
		t.Fatalf("readiness line: %v (stderr %q)", err, p.stderr.String())
	}
	send := func(id, text string) wireTask {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": a2a.MethodSendMessage, "params": map[string]any{
			"message": map[string]any{"messageId": id, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}}})
		return sendTask(t, rpcCall(t, ready.URL, string(b)))
	}
	if tk := send("tck-complete-task-1", "one"); tk.Status.State != string(a2a.TaskStateCompleted) || tk.artifact("response") != "Task completed: one" {
		t.Errorf("tck-complete-task = %+v", tk)
	}
	if tk := send("tck-artifact-text-1", "two"); tk.Status.State != string(a2a.TaskStateCompleted) || tk.artifact("response") != "Text artifact for: two" {
		t.Errorf("tck-artifact-text = %+v", tk)
	}
	if tk := send("tck-reject-task-1", "three"); tk.Status.State != string(a2a.TaskStateFailed) {
		t.Errorf("tck-reject-task = %+v, want FAILED", tk)
	}
	asked := send("tck-input-required-1", "four")
	if asked.Status.State != string(a2a.TaskStateInputRequired) || asked.artifact("prompt") != "The TCK asks for input: four" {
		t.Fatalf("tck-input-required = %+v", asked)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": a2a.MethodSendMessage, "params": map[string]any{
		"message": map[string]any{"messageId": "tck-input-required-reply", "taskId": asked.ID, "role": "ROLE_USER", "parts": []any{map[string]any{"text": "yes"}}}}})
	if tk := sendTask(t, rpcCall(t, ready.URL, string(b))); tk.Status.State != string(a2a.TaskStateCompleted) || tk.artifact("response") != "Input received: yes" {
		t.Errorf("the reply = %+v", tk)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	results := conformance.Run(ctx, conformance.Config{URL: ready.URL})
	if tl := conformance.Tally(results); tl.Failed != 0 {
		for _, r := range results {
			if r.Status == conformance.Fail {
				t.Errorf("%s", r)
			}
		}
	}
	for _, id := range []string{"rest.send", "rest.get", "rest.list", "rest.stream", "rest.errors", "rpc.media-type", "card.signature", "card.cache"} {
		for _, r := range results {
			if r.ID == id && r.Status != conformance.Pass {
				t.Errorf("%s: %s, want PASS", id, r)
			}
		}
	}
	stopConformer(t, p)
}
