package e2e

import (
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/trace"
)

// A scoped tool of a Codex-dialect session finds the bridge's bearer
// nowhere it can read: not in any /proc/*/environ or cmdline (the probe
// scans every process for the token's mtt_ prefix and tries its mur's
// threads), not in <H>/bridge.json (the file codex's MCP server, `mur
// __mcp-proxy`, reads it from). And the bearer is in neither codex's
// argv nor its environment at all, so nothing that can read those finds
// it (PROC-7, PROC-8). (Codex used to get it in MURMUR_TOOL_SERVER_TOKEN.)
func TestScopedToolCannotReadTheBridgeBearer(t *testing.T) {
	if _, err := proc.LandlockABI(); err != nil {
		t.Skipf("the kernel offers no Landlock: %v", err)
	}
	bin := testmur.TempDir(t)
	if out, err := testmur.Combined(exec.Command("go", "build", "-o", filepath.Join(bin, "probe"), "../../../cmd/mur/testdata/probe")); err != nil {
		t.Fatalf("go build probe: %v\n%s", err, out)
	}
	command := "probe " + hex.EncodeToString([]byte("mtt_")) + " $PPID; echo probe-exit=$?; find / -name bridge.json -exec cat {} + 2>/dev/null; echo find-done"
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
	if strings.Contains(out, "reached:") || !strings.Contains(out, "find-done") || strings.Contains(out, `"token"`) {
		t.Errorf("a scoped tool reached the bearer or its runtime:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(r.RecordsDir, "harness", "bridge.json"))
	if fi, serr := os.Stat(filepath.Join(r.RecordsDir, "harness", "bridge.json")); err != nil || serr != nil || fi.Mode().Perm() != 0o600 || !strings.Contains(string(b), `"token":"mtt_`) {
		t.Errorf("<H>/bridge.json: %v %v %q, want 0600 with the token", err, serr, b)
	}
	for _, fc := range c.calls(t) {
		if strings.Contains(strings.Join(fc.Argv, " "), "mtt_") || slices.Contains(fc.Env, "MURMUR_TOOL_SERVER_TOKEN") {
			t.Errorf("codex was handed the bearer: argv %q, environment %q", fc.Argv, fc.Env)
		}
	}
}

// A scoped session's harness CLI is contained like a tool process (it
// starts through the trampoline): no capability, no_new_privs, the seccomp
// filter; it reads its workdir but neither $MURMUR_HOME (the stores'
// running records, its own trace, other members' workdirs) nor a file
// outside its grants; and its bridged calls still work (codex's through
// the proxy it starts inside the same domain). Its version probe runs
// contained too. (The CLI used to keep the runtime's user and capabilities
// and reach everything.)
func TestHarnessIsContained(t *testing.T) {
	if _, err := proc.LandlockABI(); err != nil {
		t.Skipf("the kernel offers no Landlock: %v", err)
	}
	for _, dialect := range []string{"claude", "codex"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			outside := filepath.Join(testmur.TempDir(t), "outside.txt")
			if err := os.WriteFile(outside, []byte("not yours"), 0o644); err != nil {
				t.Fatal(err)
			}
			c := newCap(t, dialect, "", "", "")
			c.write(t, "own.txt", "yours")
			c.write(t, "script.json", `{"runs":[{"steps":[
				{"read":`+mustJSON([]string{filepath.Join(c.dir, "own.txt"), c.home, outside})+`},
				{"tool":{"name":"echo","args":{"command":"bridged"}}},
				{"answer":"DONE"}]}]}`)
			r, _, stderr, code := c.run(t, "go")
			if res := result(t, r); code != 0 || res != "DONE" {
				t.Fatalf("mur run = %d, result %q, stderr %q", code, res, stderr)
			}
			const contained = "CapEff: 0000000000000000,NoNewPrivs: 1,Seccomp: 2"
			calls := c.calls(t)
			if len(calls) != 1 || strings.Join(calls[0].Status, ",") != contained {
				t.Errorf("the harness ran as %+v, want no capability, no_new_privs and seccomp", calls)
			}
			if b, err := os.ReadFile(c.state("version-status")); err != nil || string(b) != contained {
				t.Errorf("the version probe ran as %q (%v), want %q (PROC-10)", b, err, contained)
			}
			b, err := os.ReadFile(c.state("reads.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			want := `{"path":"` + filepath.Join(c.dir, "own.txt") + `","bytes":5}` + "\n" +
				`{"path":"` + c.home + `","bytes":0,"error":"open ` + c.home + `: permission denied"}` + "\n" +
				`{"path":"` + outside + `","bytes":0,"error":"open ` + outside + `: permission denied"}` + "\n"
			if string(b) != want {
				t.Errorf("the harness read:\n%s\nwant:\n%s", b, want)
			}
			res := c.results(t)
			if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Text, "bridged") {
				t.Errorf("the bridged call = %+v", res)
			}
		})
	}
}
