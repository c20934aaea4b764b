package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLaunchReady times `mur run --roster --json` from exec to every
// door ready — the entry's readiness line, printed after the formation line
// — for formations of 2 to 256 members, and reports the resident memory of
// an idle peer: all of it (VmRSS, mostly the binary's page-cache pages every
// member shares) and its own (RssAnon). Every member is an authenticated
// scripted capsule; the entry may call every peer.
//
//	go test -run '^$' -bench 'LaunchReady/members=(8|64|256)$' -benchtime 5x ./launcher/e2e/
//
// With MUR_BENCH_BASELINE naming another mur binary, each iteration also
// launches the same formation with it, alternating which goes first, and
// reports its time as ms-to-ready-baseline and the ratio: a comparison in
// one run, on a machine whose load moves between runs.
func BenchmarkLaunchReady(b *testing.B) {
	baseline := os.Getenv("MUR_BENCH_BASELINE")
	for _, n := range []int{2, 8, 16, 32, 64, 128, 256} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			w := newWorld(b)
			benchInstall(b, w)
			var r strings.Builder
			r.WriteString("roster_version: 1\nmembers:\n  - {name: m0, capsule: bench-member, version: \"0.1.0\", entry: true}\n")
			var callees []string
			for i := 1; i < n; i++ {
				fmt.Fprintf(&r, "  - {name: m%d, capsule: bench-member, version: \"0.1.0\"}\n", i)
				callees = append(callees, fmt.Sprintf("m%d", i))
			}
			fmt.Fprintf(&r, "reachability:\n  - {from: m0, to: [%s]}\n", strings.Join(callees, ", "))
			os.MkdirAll(filepath.Join(w.dir, "f"), 0o755)
			os.WriteFile(filepath.Join(w.dir, "f", "roster.yaml"), []byte(r.String()), 0o644)
			var rssKiB, anonKiB, rssN int64
			var total, totalBase time.Duration
			iters := 0
			// launch times one formation launch with bin to every door ready
			// and stops it; sample, when set, reads its idle peers' memory.
			launch := func(bin string, sample bool) time.Duration {
				start := time.Now()
				l := w.startWith(b, bin, "f", "run", "--roster", "--json")
				fl := decode[formationLine](b, l.line(b))
				l.line(b) // the entry's readiness line: every door is ready
				took := time.Since(start)
				b.StopTimer()
				if sample {
					for _, p := range fl.Peers {
						if kib := rss(p.PID, "VmRSS:"); kib > 0 {
							rssKiB, anonKiB, rssN = rssKiB+kib, anonKiB+rss(p.PID, "RssAnon:"), rssN+1
						}
					}
				}
				l.cmd.Process.Signal(syscall.SIGTERM)
				if code := l.wait(); code != 143 {
					b.Fatalf("%s: launcher exit %d\n%s", bin, code, l.stderr)
				}
				b.StartTimer()
				return took
			}
			b.ResetTimer()
			for b.Loop() {
				if baseline != "" && iters%2 == 1 {
					totalBase += launch(baseline, false)
				}
				total += launch(mur, true)
				if baseline != "" && iters%2 == 0 {
					totalBase += launch(baseline, false)
				}
				iters++
			}
			b.ReportMetric(float64(total.Microseconds())/float64(iters)/1000, "ms-to-ready")
			if baseline != "" {
				b.ReportMetric(float64(totalBase.Microseconds())/float64(iters)/1000, "ms-to-ready-baseline")
				b.ReportMetric(float64(total)/float64(totalBase), "ratio-to-baseline")
			}
			if rssN > 0 {
				b.ReportMetric(float64(rssKiB)/float64(rssN)/1024, "MiB-rss/idle-peer")
				b.ReportMetric(float64(anonKiB)/float64(rssN)/1024, "MiB-anon/idle-peer")
			}
		})
	}
}

func benchInstall(b *testing.B, w *world) {
	dir := filepath.Join(w.dir, "src", "bench-member")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(fmt.Sprintf(peerManifest, "bench-member")), 0o644)
	os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(fmt.Sprintf(peerScript, "bench")), 0o644)
	if _, errOut, code := w.run(b, ".", "install", "-g", dir); code != 0 {
		b.Fatalf("install: %s", errOut)
	}
}

// rss is one of a process's resident set sizes in KiB, or 0: field is
// "VmRSS:" (everything mapped, the binary's pages in the page cache too,
// which every member of a formation shares) or "RssAnon:" (its own memory:
// what each further member adds).
func rss(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
