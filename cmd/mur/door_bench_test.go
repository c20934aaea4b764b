package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// BenchmarkDoorBodiesRSS sends 64 maximum-size bodies (just under DOOR-5's
// 8 MiB, GetTask with a padded params) at once to a real door, per
// iteration, and reports the door process's peak resident memory (VmHWM,
// MiB) and how many of the 64 it answered 200 and 503.
func BenchmarkDoorBodiesRSS(b *testing.B) {
	e := &runEnv{home: b.TempDir(), dir: b.TempDir()}
	for name, body := range map[string]string{
		"murmur.yaml": "name: door-rss\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: script.yaml}}\n" +
			"lifecycle: {task_acceptance: queue, after_task: sleep}\n",
		"script.yaml": "script_version: 1\nfallback:\n  turns: [{text: done}]\n",
	} {
		if err := os.WriteFile(e.dir+"/"+name, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cmd := e.command("--json")
	out, _ := cmd.StdoutPipe()
	if err := testmur.Start(cmd); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var ready struct {
		PID int    `json:"pid"`
		URL string `json:"url"`
	}
	if err := json.NewDecoder(out).Decode(&ready); err != nil {
		b.Fatal(err)
	}
	const head = `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"tsk_00000000000000000000000000000000","pad":"`
	body := head + strings.Repeat("x", 8<<20-len(head)-8) + `"}}`
	var ok, busy, failed int
	for b.Loop() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				req, _ := http.NewRequest("POST", ready.URL, bytes.NewReader([]byte(body)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("A2A-Version", "1.0")
				resp, err := http.DefaultClient.Do(req)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					failed++
				case resp.StatusCode == 200:
					ok++
				case resp.StatusCode == 503:
					busy++
				default:
					failed++
				}
				if resp != nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(vmHWM(b, ready.PID))/1024, "MiB-peak-RSS")
	b.ReportMetric(float64(ok)/float64(b.N), "200/op")
	b.ReportMetric(float64(busy)/float64(b.N), "503/op")
	b.ReportMetric(float64(failed)/float64(b.N), "failed/op")
}

// vmHWM is a process's peak resident set size in KiB (/proc/<pid>/status).
func vmHWM(b *testing.B, pid int) int {
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(s), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	b.Fatal("no VmHWM")
	return 0
}
