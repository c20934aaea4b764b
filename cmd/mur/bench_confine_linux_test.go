package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/tool/shell"
)

// BenchmarkTrampolineShellCall is one bash tool call (`true`) through the
// shell tool: unconfined, scoped and sealed, in the same run. It lives here
// because the trampoline is /proc/self/exe: this package's test binary
// links what mur links, so its trampoline starts like mur's (BENCHMARKS.md).
//
//	go test -run '^$' -bench TrampolineShellCall -benchtime 200x ./cmd/mur/
func BenchmarkTrampolineShellCall(b *testing.B) {
	if _, err := proc.LandlockABI(); err != nil {
		b.Skipf("no Landlock: %v", err)
	}
	for _, class := range []string{"unconfined", proc.Scoped, proc.Sealed} {
		b.Run(class, func(b *testing.B) {
			sh, closeSB := benchShell(b, class)
			defer closeSB()
			bash := sh.Tool("bash")
			input := json.RawMessage(`{"command":"true"}`)
			b.ResetTimer()
			for range b.N {
				res := bash.Call(b.Context(), &tool.CallContext{TaskID: "tsk_b"}, input)
				if res.ExitCode == nil || *res.ExitCode != 0 {
					b.Fatalf("bash true = %+v", res)
				}
			}
		})
	}
}

// BenchmarkSealedSetup is a sealed session's sandbox made and closed: the
// composed root's spec, the synthetic accounts, the cgroups (as root) and
// the rehearsal of a whole sealed start.
func BenchmarkSealedSetup(b *testing.B) {
	if _, err := proc.LandlockABI(); err != nil {
		b.Skipf("no Landlock: %v", err)
	}
	for range b.N {
		_, closeSB := benchShell(b, proc.Sealed)
		closeSB()
	}
}

// benchShell is a shell tool over a workdir of its own under class
// ("unconfined": no sandbox).
func benchShell(b *testing.B, class string) (*shell.Shell, func()) {
	dir := b.TempDir()
	wd, home, tmp, logs := filepath.Join(dir, "wd"), filepath.Join(dir, "home"), filepath.Join(dir, "tmp"), filepath.Join(dir, "logs")
	for _, d := range []string{wd, home, tmp, logs, filepath.Join(dir, "sealed", "root")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp}
	sh := &shell.Shell{Workdir: wd, Env: env, LogsDir: logs}
	if class == "unconfined" {
		return sh, func() {}
	}
	p := &proc.Policy{ReadWrite: []string{wd, home, tmp}, ReadOnly: proc.PathDirs(env)}
	if class == proc.Sealed {
		p.Seal = &proc.Seal{Root: filepath.Join(dir, "sealed", "root"), Etc: filepath.Join(dir, "sealed", "etc"),
			Limits: proc.DefaultLimits, Name: "bench"}
	}
	sb, err := proc.NewSandbox(p, nil)
	if err != nil {
		b.Skipf("%s: %v", class, err)
	}
	sh.Sandbox = sb
	return sh, sb.Close
}
