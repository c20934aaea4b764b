package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

const (
	benchPeers = 15  // with the entry, a 16-member formation
	benchCalls = 200 // member calls the entry makes, 15 at a time
)

// benchMember is a member: queued tasks, consent, a scripted driver.
const benchMember = `name: bench-%[1]s
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
  max_turns: %[2]d
capabilities:
  network:
    allow: [localhost]
lifecycle:
  task_acceptance: queue
  queue_depth: 2
  after_task: sleep
exports:
  peer_tasks:
    accept: true
network:
  authentication:
    scheme: bearer
`

// benchFormation writes and installs a 16-member formation: the entry hub
// hands work to p1…p15 in rounds, 15 calls at a time, until it made
// benchCalls member calls; each peer answers at once.
func benchFormation(b *testing.B, p *project) {
	b.Helper()
	write := func(rel, text string) {
		path := filepath.Join(p.dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var script, roster strings.Builder
	script.WriteString("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n")
	rounds := 0
	for left := benchCalls; left > 0; left -= benchPeers {
		script.WriteString("      - tool_calls:\n")
		for i := 1; i <= min(left, benchPeers); i++ {
			fmt.Fprintf(&script, "          - {name: call-member, input: {member: p%d, task: \"part %d of {{task}}\"}}\n", i, rounds*benchPeers+i)
		}
		script.WriteString("      - text: \"waiting for the round's answers\"\n")
		rounds++
	}
	script.WriteString("      - text: \"done: {{task}}\"\n")
	write("hub/murmur.yaml", fmt.Sprintf(benchMember, "hub", 2*rounds+2)) // door mode runs the entry queue/sleep anyway (LAUNCH-7)
	write("hub/script.yaml", script.String())
	roster.WriteString("roster_version: 1\nmembers:\n  - {name: hub, capsule: bench-hub, version: \"0.1.0\", entry: true}\n")
	var callees []string
	for i := 1; i <= benchPeers; i++ {
		name := fmt.Sprintf("p%d", i)
		callees = append(callees, name)
		fmt.Fprintf(&roster, "  - {name: %s, capsule: bench-%s, version: \"0.1.0\"}\n", name, name)
		write(name+"/murmur.yaml", fmt.Sprintf(benchMember, name, 4))
		write(name+"/script.yaml", "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: \""+name+" did: {{task}}\"\n")
	}
	fmt.Fprintf(&roster, "reachability:\n  - {from: hub, to: [%s]}\n", strings.Join(callees, ", "))
	write("roster.yaml", roster.String())
	for _, m := range append([]string{"hub"}, callees...) {
		p.mur(b, "install", m)
	}
}

// lags collects how long after its trace record each call state reached a
// reader, in milliseconds.
type lags struct {
	mu sync.Mutex
	ms []float64
}

func (l *lags) add(ms float64) { l.mu.Lock(); l.ms = append(l.ms, ms); l.mu.Unlock() }

func (l *lags) quantile(q float64) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ms) == 0 {
		return 0
	}
	s := slices.Clone(l.ms)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// BenchmarkViewLag: a 16-member formation makes 200 member calls while mur
// view follows it, with a headless Chromium on the page and a Go client on
// its event stream. It reports, per call state (started, completed), how
// long after its trace record the state reached the event stream and the
// page's arrow, next to the floor of the same run: a reader that only polls
// the entry's trace file every 100 ms (the view's poll period); and the view
// process's resident memory, idle before the task and at its peak (VmHWM).
//
//	go test -run '^$' -bench ViewLag -benchtime 1x ./launcher/view/e2e/
func BenchmarkViewLag(b *testing.B) {
	for b.Loop() {
		p := newProject(b)
		benchFormation(b, p)
		launcher, fl, entry := p.launch(b)
		view, vl := p.view(b, fl.FormationID)
		idleKiB := procStatus(view.cmd.Process.Pid, "VmRSS")

		var stream, page, floor lags
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { readStream(b, vl.URL, &stream, done) })
		wg.Go(func() { pollTrace(filepath.Join(entry.RecordsDir, "trace.jsonl"), &floor, done) })
		tab := browser(b, 5*time.Minute)
		if err := chromedp.Do(tab, chromedp.Navigate(vl.URL)); err != nil {
			b.Fatal(err)
		}
		if _, err := chromedp.Run(tab, chromedp.Poll[bool](`document.querySelectorAll("g.node").length === 16`, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
			b.Fatalf("the page never showed 16 members: %v", err)
		}
		if _, err := chromedp.Run(tab, chromedp.Evaluate[chromedp.Void](`window.__lags = []; new MutationObserver((rs) => { for (const r of rs) window.__lags.push(Date.now() - Number(r.target.dataset.stepAt)); }).observe(document.getElementById("arrows"), {subtree: true, attributes: true, attributeFilter: ["data-state"]})`)); err != nil {
			b.Fatal(err)
		}
		var peakKiB int64
		wg.Go(func() {
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				peakKiB = max(peakKiB, procStatus(view.cmd.Process.Pid, "VmRSS"))
				select {
				case <-done:
					return
				case <-tick.C:
				}
			}
		})
		start := time.Now()
		sendTask(b, entry.URL, p.operatorToken(b, entry.SessionID), "the benchmark")
		if _, err := chromedp.Run(tab, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll('#calls tbody tr[data-state="completed"]').length === %d`, benchCalls),
			chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(4*time.Minute))); err != nil {
			b.Fatalf("the page never showed %d completed calls: %v", benchCalls, err)
		}
		took := time.Since(start)
		screenshot(b, tab, "view-16-members.png")
		inPage, err := chromedp.Run(tab, chromedp.Evaluate[[]float64](`window.__lags`))
		if err != nil {
			b.Fatal(err)
		}
		for _, ms := range inPage {
			page.add(ms)
		}
		hwm := procStatus(view.cmd.Process.Pid, "VmHWM")
		close(done)
		wg.Wait()
		view.stop(b)
		launcher.stop(b)

		// A figure from an empty sample would read 0 ms: the run measured
		// nothing unless the stream and the floor saw every call at least
		// once, the page saw its arrows change and the view's memory was read.
		b.Logf("%d stream samples, %d page samples, %d floor samples", len(stream.ms), len(page.ms), len(floor.ms))
		if len(stream.ms) < benchCalls || len(floor.ms) < benchCalls || len(page.ms) == 0 || idleKiB == 0 || max(hwm, peakKiB) == 0 {
			b.Fatalf("measured too little: %d stream and %d floor samples (want %d each), %d page samples, RSS idle %d KiB, peak %d KiB",
				len(stream.ms), len(floor.ms), benchCalls, len(page.ms), idleKiB, max(hwm, peakKiB))
		}
		b.ReportMetric(took.Seconds(), "s-for-200-calls")
		b.ReportMetric(stream.quantile(0.5), "ms-stream-p50")
		b.ReportMetric(stream.quantile(0.99), "ms-stream-p99")
		b.ReportMetric(stream.quantile(1), "ms-stream-max")
		b.ReportMetric(page.quantile(0.5), "ms-page-p50")
		b.ReportMetric(page.quantile(1), "ms-page-max")
		b.ReportMetric(floor.quantile(0.5), "ms-floor-p50")
		b.ReportMetric(floor.quantile(1), "ms-floor-max")
		b.ReportMetric(float64(idleKiB)/1024, "MiB-rss-idle")
		b.ReportMetric(float64(max(hwm, peakKiB))/1024, "MiB-rss-peak")
	}
}

// readStream reads the view's event stream and records, for each call
// state it has not seen, how long after its record it arrived.
func readStream(b *testing.B, url string, l *lags, done chan struct{}) {
	base, token, _ := strings.Cut(url, "/?token=")
	req, _ := http.NewRequest(http.MethodGet, base+"/api/events?token="+token, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	go func() { <-done; resp.Body.Close() }()
	seen := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "event: "); ok {
			name = n
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || name != "call" {
			continue
		}
		now := time.Now().UnixMilli()
		var c struct {
			ID      string `json:"id"`
			History []struct {
				State string `json:"state"`
				At    int64  `json:"at"`
			} `json:"history"`
		}
		if json.Unmarshal([]byte(data), &c) != nil {
			continue
		}
		for _, s := range c.History {
			if k := c.ID + " " + s.State; !seen[k] {
				seen[k] = true
				l.add(float64(now - s.At))
			}
		}
	}
}

// pollTrace is the floor: it reads the entry's trace every 100 ms, as the
// view does, and records how late it saw each member_call_start and
// member_call line.
func pollTrace(path string, l *lags, done chan struct{}) {
	var off int64
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil && int64(len(b)) > off {
			now := time.Now().UnixMilli()
			chunk := b[off:]
			if i := strings.LastIndexByte(string(chunk), '\n'); i >= 0 {
				for _, line := range strings.Split(string(chunk[:i]), "\n") {
					var r struct {
						EventType string `json:"event_type"`
						Timestamp int64  `json:"timestamp"`
					}
					if json.Unmarshal([]byte(line), &r) == nil && (r.EventType == "member_call_start" || r.EventType == "member_call") {
						l.add(float64(now - r.Timestamp))
					}
				}
				off += int64(i) + 1
			}
		}
		select {
		case <-done:
			return
		case <-tick.C:
		}
	}
}

// procStatus reads a /proc/<pid>/status field in KiB (VmRSS, VmHWM), or 0.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
