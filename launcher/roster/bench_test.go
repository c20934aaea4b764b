package roster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchRoster writes a roster of n members running one capsule, reachability
// all (every pair of peers an edge: admission's largest output).
func benchRoster(b *testing.B, n int) (string, *fakeStore) {
	var sb strings.Builder
	sb.WriteString("roster_version: 1\nmembers:\n")
	for i := range n {
		entry := ""
		if i == 0 {
			entry = ", entry: true"
		}
		fmt.Fprintf(&sb, "  - {name: m%d, capsule: coder, version: 1.2.0%s}\n", i, entry)
	}
	sb.WriteString("reachability: all\n")
	path := filepath.Join(b.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path, store()
}

// BenchmarkAdmit measures admission (load, checks 1–8, edges, ADM-2) of
// rosters of 64 and 256 members with reachability all (admission
// is linear in members and edges).
func BenchmarkAdmit(b *testing.B) {
	for _, n := range []int{64, 256} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			path, s := benchRoster(b, n)
			for b.Loop() {
				if _, _, err := Admit(path, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
