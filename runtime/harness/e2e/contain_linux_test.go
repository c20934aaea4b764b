package e2e

import (
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/trace"
)

// A scoped tool of a Codex-dialect session cannot read the bridge's bearer
// out of the harness's environment (PROC-8 hands it to codex there), nor
// find it in any other readable /proc/*/environ or cmdline, nor reach its
// runtime's memory: the bridged bash tool runs the probe, which scans every
// process for MURMUR_TOOL_SERVER_TOKEN= and tries its mur's threads. (A
// tool used to keep root's capabilities, and read the harness's environ.)
func TestScopedToolCannotReadTheBridgeBearer(t *testing.T) {
	if _, err := proc.LandlockABI(); err != nil {
		t.Skipf("the kernel offers no Landlock: %v", err)
	}
	bin := testmur.TempDir(t)
	if out, err := testmur.Combined(exec.Command("go", "build", "-o", filepath.Join(bin, "probe"), "../../../cmd/mur/testdata/probe")); err != nil {
		t.Fatalf("go build probe: %v\n%s", err, out)
	}
	command := "probe " + hex.EncodeToString([]byte("MURMUR_TOOL_SERVER_TOKEN=")) + " $PPID; echo probe-exit=$?"
	c := newCap(t, "codex", "", "", `{"runs":[{"steps":[
		{"tool":{"name":"bash","args":{"command":`+mustJSON(command)+`}}},
		{"answer":"DONE"}]}]}`)
	manifest, err := os.ReadFile(filepath.Join(c.dir, "murmur.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.write(t, "murmur.yaml", strings.Replace(string(manifest), "shell: {allow: [echo, sleep]}", "shell: {allow: [bash]}\n  containment: scoped", 1))
	c.env = append(c.env, "PATH="+bin+":"+os.Getenv("PATH"))
	r, _, stderr, code := c.run(t, "probe")
	if res := result(t, r); code != 0 || res != "DONE" {
		t.Fatalf("mur run = %d, result %q, stderr %q", code, res, stderr)
	}
	tcs := of[trace.ToolCall](t, records(t, r.RecordsDir))
	if len(tcs) != 1 || tcs[0].Output == nil {
		t.Fatalf("tool_call = %+v", tcs)
	}
	out := *tcs[0].Output
	if !strings.Contains(out, "probe done\n") || !strings.Contains(out, "probe-exit=0") {
		t.Fatalf("the probe did not finish: %q", out)
	}
	if strings.Contains(out, "reached:") {
		t.Errorf("a scoped tool reached the bearer or its runtime:\n%s", out)
	}
}
