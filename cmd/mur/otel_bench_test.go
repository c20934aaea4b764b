package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/otlptest"
	"github.com/murmur-go/mur/internal/testmur"
)

// BenchmarkDoorGetTaskOTEL is GetTask throughput through a real `mur run`
// door (keep-alive clients in parallel, the task a completed one), with
// OTLP export off and on (to a receiver the benchmark runs); the
// goal is under 5 % apart. Run both in one go, interleaved (BENCHMARKS.md).
//
// It fails when it measured the wrong thing: an answer that is no GetTask
// result (a JSON-RPC error is HTTP 200 too), or, with export on, a receiver
// that got no span (the task startDoor ran exports its own).
func BenchmarkDoorGetTaskOTEL(b *testing.B) {
	for _, mode := range []string{"off", "on"} {
		b.Run("otel="+mode, func(b *testing.B) {
			var env []string
			var rcv *otlptest.Receiver
			if mode == "on" {
				rcv = otlptest.Start(b)
				env = []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.URL}
			}
			url, id := startDoor(b, env)
			result := []byte(`"result":{"id":"` + id + `"`)
			body := []byte(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"` + id + `"}}`)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("A2A-Version", "1.0")
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					answer, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || resp.StatusCode != 200 || !bytes.Contains(answer, result) {
						b.Errorf("GetTask answered %d %q (%v), want the task", resp.StatusCode, answer, err)
						return
					}
				}
			})
			b.StopTimer()
			if rcv != nil && !testmur.Within(time.Minute, func() bool { return len(rcv.Spans()) > 0 }) {
				b.Fatal("export on, and the receiver got no span of the session's task")
			}
		})
	}
}

// startDoor starts a queue/sleep `mur run` with extra environment, runs
// one task to its end and returns the door URL and that task's id.
func startDoor(b *testing.B, extra []string) (url, taskID string) {
	b.Helper()
	e := &runEnv{home: b.TempDir(), dir: b.TempDir()}
	for name, body := range map[string]string{
		"murmur.yaml": "name: door-otel\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: script.yaml}}\n" +
			"lifecycle: {task_acceptance: queue, after_task: sleep}\n",
		"script.yaml": "script_version: 1\nfallback:\n  turns: [{text: done}]\n",
	} {
		if err := os.WriteFile(e.dir+"/"+name, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cmd := e.command("--json")
	cmd.Env = append(cmd.Env, extra...)
	out, _ := cmd.StdoutPipe()
	if err := testmur.Start(cmd); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var ready struct {
		URL string `json:"url"`
	}
	if err := json.NewDecoder(out).Decode(&ready); err != nil {
		b.Fatal(err)
	}
	send := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"x"}]}}}`
	req, _ := http.NewRequest("POST", ready.URL, bytes.NewReader([]byte(send)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Result struct {
			Task struct {
				ID     string `json:"id"`
				Status struct {
					State string `json:"state"`
				} `json:"status"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Result.Task.ID == "" {
		b.Fatalf("SendMessage: %v %+v", err, r)
	}
	return ready.URL, r.Result.Task.ID
}
