package e2e

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
)

const benchSize = 64 << 20

// benchSharer is the sharer with room for the 64 MiB file.
var benchSharer = strings.Replace(sharerManifest, "max_bytes: 1Ki", "max_bytes: 64Mi", 1)

// benchWorld starts a sharer door holding a 64 MiB out/sub/report.md and a
// fetcher door, and mints a handle for the fetcher.
func benchWorld(b *testing.B) (w *world, sharer, fetcher *proc, handle, audience, path string) {
	b.Helper()
	w = newWorld(b)
	w.write(b, "sharer/murmur.yaml", benchSharer)
	w.write(b, "sharer/script.yaml", sharerScript)
	path = filepath.Join(w.root, "sharer/out/sub/report.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.CopyN(f, rand.Reader, benchSize); err != nil {
		b.Fatal(err)
	}
	f.Close()
	sharer = w.start(b, "sharer")
	w.operatorToken(b, sharer)
	w.write(b, "fetcher/murmur.yaml", fetcherManifest)
	w.write(b, "fetcher/script.yaml", fetcherScript(sharer.ready.URL))
	fetcher = w.start(b, "fetcher")
	hp := strings.TrimPrefix(fetcher.ready.URL, "http://")
	var m mintData
	text := sharer.send(b, hp)
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		b.Fatalf("share-file answered %q", text)
	}
	return w, sharer, fetcher, m.Handle, "fetcher@" + hp, path
}

// get reads url's whole body into io.Discard and returns how long it took.
func get(b *testing.B, c *http.Client, url string, hdr ...string) time.Duration {
	b.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if len(hdr) == 2 {
		req.Header.Set(hdr[0], hdr[1])
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != benchSize || resp.StatusCode != 200 {
		b.Fatalf("GET %s: %d, %d bytes, %v", url, resp.StatusCode, n, err)
	}
	return time.Since(start)
}

// BenchmarkRedeem64MiB redeems a 64 MiB file at a real mur door (GET
// /resources/peer/<handle>, every check, the etag) and, in the same loop
// with the same client, GETs the same file from a bare net/http
// ServeContent on loopback, served by a process of its own as the door is:
// redeem-MB/s, servecontent-MB/s and their ratio.
// The first redeems hash the file; once it is a second old its digest is
// kept (hash.go), which the warm-up reaches before the timer starts.
func BenchmarkRedeem64MiB(b *testing.B) {
	_, sharer, _, handle, audience, path := benchWorld(b)
	baseURL := startBare(b, path) + "/report.md"
	c := &http.Client{}
	redeemURL := sharer.ready.URL + "/resources/peer/" + handle
	fi, _ := os.Stat(path)
	cold := get(b, c, redeemURL, "x-murmur-audience", audience)
	for time.Since(fi.ModTime()) < 1500*time.Millisecond { // the digest is kept once the file is a second old
		get(b, c, redeemURL, "x-murmur-audience", audience)
	}
	get(b, c, baseURL)
	b.SetBytes(benchSize)
	b.ResetTimer()
	var redeem, base time.Duration
	for b.Loop() {
		redeem += get(b, c, redeemURL, "x-murmur-audience", audience)
		base += get(b, c, baseURL)
	}
	b.StopTimer()
	mbps := func(d time.Duration) float64 { return float64(b.N) * benchSize / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(redeem), "redeem-MB/s")
	b.ReportMetric(mbps(base), "servecontent-MB/s")
	b.ReportMetric(mbps(redeem)/mbps(base), "ratio")
	b.ReportMetric(float64(benchSize)/cold.Seconds()/1e6, "cold-redeem-MB/s")
}

// BenchmarkFetch64MiB has the real fetcher process fetch the 64 MiB file
// through fetch-peer-file (stream to peer-in/, hash, fsync, rename) and
// reports its resident set's growth during each fetch: the peak (VmHWM,
// reset through clear_refs before the fetch) less VmRSS before it, the
// largest over the runs.
//
// A fetch that did not store the whole file fails the benchmark: the tool's
// answer must name benchSize bytes and the shared file's sha256, and the
// stored file must hold that many bytes.
func BenchmarkFetch64MiB(b *testing.B) {
	_, _, fetcher, handle, _, path := benchWorld(b)
	pid := fetcher.cmd.Process.Pid
	content, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	want := sum(content)
	content = nil
	fetch := func() {
		text := fetcher.send(b, handle)
		var f fetchData
		if err := json.Unmarshal([]byte(text), &f); err != nil || f.Bytes != benchSize || f.SHA256 != want {
			b.Fatalf("fetch-peer-file answered %q (%v), want %d bytes with sha256 %s", text, err, benchSize, want)
		}
		if fi, err := os.Stat(filepath.Join(fetcher.ready.Workdir, f.Path)); err != nil || fi.Size() != benchSize {
			b.Fatalf("the fetched file %s: %v, want %d bytes", f.Path, err, benchSize)
		}
	}
	fetch() // warm: the first fetch makes peer-in/ and the client
	var grow int64
	b.SetBytes(benchSize)
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0); err != nil {
			b.Fatalf("reset the peak RSS: %v", err)
		}
		before := status(b, pid, "VmRSS")
		b.StartTimer()
		fetch()
		b.StopTimer()
		grow = max(grow, status(b, pid, "VmHWM")-before)
		b.StartTimer()
	}
	b.ReportMetric(float64(grow)/(1<<20), "rss-growth-MiB")
}

// bareServeEnv makes the test binary the baseline server (TestMain).
const bareServeEnv = "PEERFILE_BENCH_SERVE"

// bareServe serves path with http.ServeContent on a loopback port it
// prints, until stdin closes.
func bareServe(path string) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		fi, _ := f.Stat()
		http.ServeContent(w, r, "report.md", fi.ModTime(), f)
	})}
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); _ = srv.Close() }()
	fmt.Println("http://" + ln.Addr().String())
	_ = srv.Serve(ln)
	return 0
}

// startBare runs the baseline server process and returns its URL.
func startBare(b *testing.B, path string) string {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), bareServeEnv+"="+path)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := testmur.StartFake(cmd); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("the baseline server: %v", err)
	}
	return strings.TrimSpace(line)
}

// status reads a /proc/<pid>/status field in bytes.
func status(b *testing.B, pid int, field string) int64 {
	b.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
