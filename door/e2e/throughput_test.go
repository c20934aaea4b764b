package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/wire"
)

// conns is the load generator's concurrency: 64 keep-alive connections, as
// wrk -c64.
const conns = 64

// roundRequests is one round's requests; a benchmark iteration is one round
// against the door and one against the bare server, the order alternating.
const roundRequests = 20000

// capsule is a queue door whose executor holds its first task for ten
// minutes, so that the tasks sent meanwhile wait in the queue and cost the
// door only their acceptance.
const capsule = `name: bench-door
version: "0.1.0"
inference:
  driver: {kind: scripted, script: script.yaml}
lifecycle:
  task_acceptance: queue
  queue_depth: 200000
  after_task: sleep
`

const script = `script_version: 1
rules:
  - match: {contains: "hold"}
    turns:
      - {delay_ms: 600000, text: held}
fallback:
  turns:
    - text: "benchmark answer"
`

// BenchmarkDoorCrossProcess is the door's throughput against a bare
// net/http JSON-RPC server, each a process of its own on loopback, driven by
// one Go load generator at 64 connections, rounds interleaved: GetTask of a
// completed task, and SendMessage returnImmediately onto a queue. It reports
// each side's requests a second and the door's ratio to the bare server.
//
//	go test -run '^$' -bench DoorCrossProcess -benchtime 3x ./door/e2e/
func BenchmarkDoorCrossProcess(b *testing.B) {
	dir, home := testmur.Dirs(b, "door")
	os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(capsule), 0o644)
	os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script), 0o644)
	door := startDoor(b, dir, home)
	// A completed task for GetTask, then the task the executor holds.
	sent := post(b, http.DefaultClient, door, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-0","role":"ROLE_USER","parts":[{"text":"answer"}]}}}`)
	var first struct {
		Result a2a.SendMessageResponse `json:"result"`
	}
	if err := json.Unmarshal(sent, &first); err != nil || first.Result.Task == nil || first.Result.Task.Status.State != a2a.TaskStateCompleted {
		b.Fatalf("first task: %s (%v)", sent, err)
	}
	taskID := string(first.Result.Task.ID)
	post(b, http.DefaultClient, door, sendBody("hold"))

	getBody := `{"jsonrpc":"2.0","id":9,"method":"GetTask","params":{"id":"` + taskID + `"}}`
	for _, c := range []struct{ name, body string }{
		{"GetTask", getBody},
		{"SendMessage", sendBody("benchmark task")},
	} {
		b.Run(c.name, func(b *testing.B) {
			// The bare server answers with the door's own result for this call.
			var answer struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(post(b, http.DefaultClient, door, c.body), &answer); err != nil || len(answer.Result) == 0 {
				b.Fatalf("door answer: %v", err)
			}
			resultFile := filepath.Join(b.TempDir(), "result.json")
			os.WriteFile(resultFile, answer.Result, 0o644)
			bare := startBare(b, resultFile)
			var doorTime, bareTime time.Duration
			rounds := 0
			for b.Loop() {
				if rounds%2 == 0 {
					doorTime += round(b, door, c.body)
					bareTime += round(b, bare, c.body)
				} else {
					bareTime += round(b, bare, c.body)
					doorTime += round(b, door, c.body)
				}
				rounds++
			}
			n := float64(rounds * roundRequests)
			b.ReportMetric(n/doorTime.Seconds(), "door-req/s")
			b.ReportMetric(n/bareTime.Seconds(), "bare-req/s")
			b.ReportMetric(bareTime.Seconds()/doorTime.Seconds(), "door/bare")
		})
	}
}

func sendBody(text string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"` +
		text + `"}]},"configuration":{"returnImmediately":true}}}`
}

// round sends roundRequests requests from conns workers, each on its own
// keep-alive connection, and returns how long they took.
func round(b *testing.B, url, body string) time.Duration {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
	defer c.CloseIdleConnections()
	var left atomic.Int64
	left.Store(roundRequests)
	var wg sync.WaitGroup
	start := time.Now()
	for range conns {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				post(b, c, url, body)
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// post sends one JSON-RPC call and returns the answer's body; a failure is
// reported without stopping the caller's goroutine.
func post(b *testing.B, c *http.Client, url, body string) []byte {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		b.Error(err)
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := c.Do(req)
	if err != nil {
		b.Error(err)
		return nil
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || bytes.Contains(out, []byte(`"error"`)) {
		b.Errorf("status %d: %s", resp.StatusCode, out)
	}
	return out
}

// startDoor runs `mur run --capsule dir --json` and returns its door URL; the
// session is stopped when the benchmark ends.
func startDoor(b *testing.B, dir, home string) string {
	cmd := exec.Command(mur, "run", "--capsule", dir, "--json")
	cmd.Dir, cmd.Env = dir, testmur.Env(home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	line := firstLine(b, cmd)
	var r wire.Ready
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.URL == "" {
		b.Fatalf("readiness line %q: %v", line, err)
	}
	return r.URL
}

// startBare runs this test binary as the bare server and returns its URL.
func startBare(b *testing.B, resultFile string) string {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), bareEnv+"="+resultFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return firstLine(b, cmd)
}

// firstLine starts cmd, returns its first stdout line, and kills and reaps
// its session when the benchmark ends.
func firstLine(b *testing.B, cmd *exec.Cmd) string {
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := testmur.Start(cmd); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("%s: no first line: %v", cmd.Path, err)
	}
	return strings.TrimSpace(line)
}
