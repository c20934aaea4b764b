package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/proc"
)

// scopedBash is a capsule whose one turn runs command under containment
// scoped and answers with the tool result.
func scopedBash(command string) map[string]string {
	return map[string]string{
		"murmur.yaml": "name: prober\nversion: \"1.0.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n" +
			"capabilities:\n  containment: scoped\n  shell:\n    allow: [bash]\n",
		"script.yaml": fmt.Sprintf("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n"+
			"      - tool_calls: [{name: bash, input: {command: %q}}]\n      - text: \"{{tool_result}}\"\n", command),
	}
}

func needLandlock(t *testing.T) {
	t.Helper()
	if _, err := proc.LandlockABI(); err != nil {
		t.Skipf("the kernel offers no Landlock: %v", err)
	}
}

// A scoped tool reaches neither its runtime's memory nor any process's
// secrets: from the bash tool, opening /proc/<mur>/task/*/mem, reading their
// environ, process_vm_readv and PTRACE_SEIZE on every thread of its own
// mur all fail, and a scan of every readable /proc/*/environ and cmdline
// finds no trace of the OPENAI_API_KEY in mur's environment. (The tool
// process used to fork from a runtime thread inside its own Landlock domain,
// sharing the runtime's memory, and mur was dumpable.)
func TestRunScopedToolReachesNoRuntimeOrSecret(t *testing.T) {
	needLandlock(t)
	e := newRunEnv(t, scopedBash("probe "+hex.EncodeToString([]byte("sk-probe-"))+" $PPID; echo probe-exit=$?"))
	bin := t.TempDir() // on the tool's PATH, so Landlock lets it run
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "probe"), "./testdata/probe")
	if out, err := testmur.Combined(build); err != nil {
		t.Fatalf("go build probe: %v\n%s", err, out)
	}
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	cmd := e.command("--capsule", e.dir, "--task", "probe")
	cmd.Env = append(cmd.Env, "OPENAI_API_KEY=sk-probe-"+hex.EncodeToString(b), "PATH="+bin+":"+os.Getenv("PATH"))
	out, errOut, code := testmur.Exec(t, cmd)
	if code != 0 || !strings.Contains(out, "probe done\n") || !strings.Contains(out, "probe-exit=0") {
		t.Fatalf("mur run = %d, stdout %q, stderr %q; want the probe to finish", code, out, errOut)
	}
	if strings.Contains(out, "reached:") {
		t.Errorf("a scoped tool reached its runtime or a secret:\n%s", out)
	}
}

// A scoped tool cannot open a UDP (or any other non-TCP IP) socket unless
// network.allow names a host to resolve (DNS is UDP): bash's /dev/udp is
// refused with network.allow empty or naming only IP addresses, and opens
// when it names a host.
func TestRunScopedToolHasNoUDP(t *testing.T) {
	needLandlock(t)
	for _, c := range []struct{ allow, want string }{
		{"", "udp-refused"},
		{`["127.0.0.1:9"]`, "udp-refused"},
		{`["api.example.com:443"]`, "udp-open"},
	} {
		files := scopedBash("(exec 3<>/dev/udp/127.0.0.1/9) 2>/dev/null && echo udp-open || echo udp-refused")
		if c.allow != "" {
			files["murmur.yaml"] += "  network:\n    allow: " + c.allow + "\n"
		}
		e := newRunEnv(t, files)
		out, errOut, code := e.run(t, "--capsule", e.dir, "--task", "udp")
		if code != 0 || !strings.Contains(out, "Stdout:\n"+c.want+"\n") {
			t.Errorf("network.allow %s: mur run = %d, stdout %q, stderr %q; want %s", c.allow, code, out, errOut, c.want)
		}
	}
}

// What the formation runs is read-only to a scoped tool even when its
// workdir is the project directory: the entry's bash can neither write,
// replace nor remove murmur.lock, nor write into the project store, and
// still writes a file of its own beside them. (The project directory used
// to be writable throughout, so a tool could re-pin the lock or install
// into the store.)
func TestRunScopedToolCannotRewriteTheStores(t *testing.T) {
	needLandlock(t)
	e := newRunEnv(t, scopedBash("echo x >> murmur.lock && echo lock-written; mv murmur.lock m2 && echo lock-moved; "+
		"rm -f murmur.lock && echo lock-removed; touch .murmur/artifacts/new && echo store-written; "+
		"echo mine > mine.txt && echo own-file-written"))
	store := filepath.Join(e.dir, ".murmur", "artifacts")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	lock := "lock_version: 2\nartifacts: []\n"
	if err := os.WriteFile(filepath.Join(e.dir, "murmur.lock"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e.run(t, "--capsule", e.dir, "--task", "rewrite")
	if code != 0 || !strings.Contains(out, "Stdout:\nown-file-written\n") {
		t.Errorf("mur run = %d, stdout %q, stderr %q; want only own-file-written", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(e.dir, "murmur.lock")); err != nil || string(b) != lock {
		t.Errorf("murmur.lock = %q, %v; want it untouched", b, err)
	}
	if _, err := os.Stat(filepath.Join(store, "new")); err == nil {
		t.Error("the tool wrote into the project store")
	}
}
