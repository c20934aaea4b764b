package shell

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/tool"
)

// BenchmarkShellCallConfinement is one bash tool call (`true`), unconfined
// and through a session's sandbox (the trampoline), in the same run
// (BENCHMARKS.md). Run it over 200 calls:
//
//	go test -run '^$' -bench ShellCallConfinement -benchtime 200x ./runtime/tool/shell/
func BenchmarkShellCallConfinement(b *testing.B) {
	testmur.NeedLandlock(b, 1, proc.LandlockABI)
	for _, confined := range []bool{false, true} {
		name := "unconfined"
		if confined {
			name = "confined"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			logs := filepath.Join(dir, "logs")
			wd := filepath.Join(dir, "wd")
			for _, d := range []string{logs, wd} {
				if err := os.Mkdir(d, 0o700); err != nil {
					b.Fatal(err)
				}
			}
			env := []string{"PATH=" + os.Getenv("PATH")}
			sh := &Shell{Workdir: wd, Env: env, LogsDir: logs}
			if confined {
				sb, err := proc.NewSandbox(&proc.Policy{ReadWrite: []string{wd}, ReadOnly: proc.PathDirs(env)}, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer sb.Close()
				sh.Sandbox = sb
			}
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

// TestConfinedShellStaysInItsWorkdir: the sandbox the benchmark measures
// does confine (a read outside the workdir is refused, one inside works).
func TestConfinedShellStaysInItsWorkdir(t *testing.T) {
	testmur.NeedLandlock(t, 1, proc.LandlockABI)
	dir := t.TempDir()
	wd := filepath.Join(dir, "wd")
	outside := filepath.Join(dir, "outside.txt")
	if err := os.Mkdir(wd, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	sb, err := proc.NewSandbox(&proc.Policy{ReadWrite: []string{wd}, ReadOnly: proc.PathDirs(env)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sh := &Shell{Workdir: wd, Env: env, LogsDir: dir, Sandbox: sb}
	res := sh.Tool("bash").Call(t.Context(), &tool.CallContext{TaskID: "tsk_c"}, json.RawMessage(`{"command":"cat `+outside+` 2>&1; echo in > f && cat f"}`))
	if want := "Stdout:\ncat: " + outside + ": Permission denied\nin\n"; !strings.Contains(res.Data, want) {
		t.Errorf("confined bash = %q, want its stdout %q", res.Data, want)
	}
}
