package door

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
)

// Door benchmarks serve over real loopback HTTP to many parallel clients and
// compare with a bare net/http handler that decodes the same JSON-RPC body
// and encodes an answer of the same shape (BENCHMARKS.md "Door"):
//
//	go test ./door -run '^$' -bench . -benchmem -count 5

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024}}
}

// post sends one request and drains the answer; it reports a failure
// without stopping the parallel loop's goroutine.
func benchPost(b *testing.B, c *http.Client, url, body, token string) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		b.Error(err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Errorf("status %d", resp.StatusCode)
	}
}

// baseline is the bare handler: decode the envelope, encode the answer.
func baseline(result any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var params map[string]any
		_ = json.Unmarshal(req.Params, &params)
		var buf bytes.Buffer
		_ = json.NewEncoder(&buf).Encode(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  any             `json:"result"`
		}{"2.0", req.ID, result})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(buf.Bytes())
	})
}

func benchParallel(b *testing.B, url, body, token string) {
	c := benchClient()
	benchPost(b, c, url, body, token) // warm one connection
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchPost(b, c, url, body, token)
		}
	})
}

// benchDepth bounds the queue as a real capsule's queue_depth does: when the
// executor falls behind, sends are answered REJECTED busy (TASK-5), which is
// a SendMessage answer too; an unbounded queue would measure the registry's
// queue scan instead of the door.
const benchDepth = 256

// benchDoor is an authenticated queue door whose tasks complete at once.
func benchDoor(b *testing.B) *testDoor {
	return startDoor(b, opts{auth: true, depth: benchDepth, immediate: true})
}

func completedTask(b *testing.B, td *testDoor) a2a.Task {
	r := td.call(td.tokens[OperatorCredential], strings.Replace(sendBody("benchmark answer", ""), `"returnImmediately":true`, `"returnImmediately":false`, 1))
	var sr a2a.SendMessageResponse
	if err := json.Unmarshal(r.Result, &sr); err != nil || sr.Task == nil || sr.Task.Status.State != a2a.TaskStateCompleted {
		b.Fatalf("setup task = %s %v", r.Result, err)
	}
	return *sr.Task
}

func BenchmarkGetTaskDoor(b *testing.B) {
	td := benchDoor(b)
	tk := completedTask(b, td)
	benchParallel(b, td.url, idCall("GetTask", string(tk.ID)), td.tokens[OperatorCredential])
}

func BenchmarkGetTaskBaseline(b *testing.B) {
	td := benchDoor(b)
	tk := completedTask(b, td)
	srv := httptest.NewServer(baseline(tk))
	defer srv.Close()
	benchParallel(b, srv.URL, idCall("GetTask", string(tk.ID)), td.tokens[OperatorCredential])
}

func BenchmarkSendMessageDoor(b *testing.B) {
	td := benchDoor(b)
	benchParallel(b, td.url, sendBody("benchmark task", ""), td.tokens[OperatorCredential])
	b.StopTimer()
	stored := 0
	for _, n := range td.reg.Counts() {
		stored += n
	}
	b.ReportMetric(float64(stored)/float64(b.N), "accepted/op")
}

func BenchmarkSendMessageBaseline(b *testing.B) {
	submitted := a2a.Task{ID: a2a.TaskID(a2a.NewID(a2a.PrefixTask)), ContextID: a2a.ContextID(a2a.NewID(a2a.PrefixContext)),
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: "2026-10-20T13:00:00.000Z"}}
	srv := httptest.NewServer(baseline(a2a.SendMessageResponse{Task: &submitted}))
	defer srv.Close()
	benchParallel(b, srv.URL, sendBody("benchmark task", ""), "")
}
